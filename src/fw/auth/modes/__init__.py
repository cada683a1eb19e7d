"""The authentication modes: each composes protocol pieces, sessions and guards for one ``auth.mode``."""
