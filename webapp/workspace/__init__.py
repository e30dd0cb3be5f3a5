"""The student's pages, above every app: they read problems, submissions and courses, and no app
imports them. No models: the rules these pages follow live on the apps' models."""
