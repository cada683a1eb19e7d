"""Operations: health and readiness, metrics, tracing, the access log (DESIGN 10.4).

Importing the package registers nothing and loads no store, driver or SDK;
:func:`fw.operations.pillar.register` (which fw calls with its other pillars, before configuration
is first parsed) declares their settings tables and composes the health endpoints and the request
observer into every App.
"""
