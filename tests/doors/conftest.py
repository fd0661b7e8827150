"""The mail doors' tests share the mail tests' game fixture (Alice and Bob at a Dice Duel)."""

from tests.mail.conftest import table  # noqa: F401 - a fixture, re-exported for this folder
