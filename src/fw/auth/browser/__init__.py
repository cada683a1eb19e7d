"""What every browser mode shares: sessions in cookies, sign-in and sign-out, redirects, origins.

``oidc_only`` composes these today; the passkey and ``oauth_only`` modes reuse them unchanged,
so how a browser is signed in, recognized and signed out is decided once.
"""
