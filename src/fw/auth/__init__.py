"""Authentication: five modes, sessions, guards, revocation, account seams."""
