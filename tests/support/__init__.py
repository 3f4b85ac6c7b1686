"""Code the tests share: the HTTP client and the event flows (``api``), the test services
(``services``), real worker processes (``workers``) and game records (``strategic_titan``).
Fixtures live in the ``conftest.py`` files and import from here; test modules import from here,
never from a conftest or from one another."""
