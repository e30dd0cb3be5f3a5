"""What the web tests use but are not tests: a site served on a free port, a test LTI platform,
a demo course, the courses' queued tasks run in place, and the screenshots tool."""
