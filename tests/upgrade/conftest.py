"""The fixture is a whole project with tests of its own: they belong to it, not to fw's suite."""

collect_ignore = ["fixture"]
