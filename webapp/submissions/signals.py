"""Signals the submissions app sends, for apps that must not be imported by it (such as LTI).

``graded``: a Submit or a Run was graded (sent once its verdict and score are written), with
``submission``: the ``Submission`` as it was graded.
"""

from django.dispatch import Signal

graded = Signal()
