"""devidp."""
