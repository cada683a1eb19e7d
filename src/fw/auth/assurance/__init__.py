"""Assurance: how sure fw is that the person behind a browser session is the one who signed in."""
