"""Assurance: how recently the person behind a browser session proved who they are, and
whether they are still there.

requirements.py  fw.auth.max_age / confirmed / policy: what a guard demands, resolved to a window
policies.py      [[auth.assurance.policy]]: named windows, checked at startup
guards.py        fw.auth.ensure (pages) and ensure_api (APIs); the startup check of guarded routes
stepup.py        a login that re-proves a signed-in session: its rules and the move to confirmed
grants.py        the one use a zero-width window allows (take-once in the ceremony store)
context.py       what the running browser mode hands its guards through the request scope
presence*.py     [auth.assurance.presence]: the beacon script, its endpoint, absence ends sessions
hint*.py         [auth.assurance.hint]: the remembered last visitor in a sealed cookie
"""
