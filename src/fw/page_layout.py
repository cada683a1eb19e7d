"""The one small layout of the pages fw itself serves to people: error pages and sign-in pages.

Self-contained (an inline stylesheet, system fonts, no CDN, no second request), ``lang="en"``,
one ``<main>`` landmark and colours above WCAG AA contrast, so every such page passes an
accessibility check as served.
"""

from __future__ import annotations

import html

#: Text #1a1a1a on #fff is 17:1; links #0b4fa8 on #fff 7.6:1; muted #4a4f57 on #fff 8.3:1.
STYLE = (
    ":root{color-scheme:light;font-family:system-ui,-apple-system,'Segoe UI',sans-serif;"
    "line-height:1.5;color:#1a1a1a;background:#f6f7f9}"
    "body{margin:0}main{max-width:36rem;margin:4rem auto;padding:2rem;background:#fff;"
    "border:1px solid #d0d4da;border-radius:8px}"
    "h1{font-size:1.5rem;margin:0 0 .5rem}h2{font-size:1.15rem;margin:1.5rem 0 .5rem}"
    ".status{color:#4a4f57;margin:0 0 1rem}"
    "a{color:#0b4fa8}:focus-visible{outline:3px solid #0b4fa8;outline-offset:2px}"
    "nav ul{list-style:none;padding:0;display:flex;gap:1.5rem}"
    "label{display:block;font-weight:600;margin:.75rem 0 .25rem}"
    "input{font:inherit;padding:.4rem .5rem;border:1px solid #6b7280;border-radius:4px;width:100%;"
    "box-sizing:border-box}"
    "button{font:inherit;margin-top:1rem;padding:.5rem 1rem;border:0;border-radius:4px;"
    "background:#0b4fa8;color:#fff;cursor:pointer}"
    "[role=alert]:not(:empty){margin-top:1rem;padding:.75rem;border-left:4px solid #b42318;"
    "background:#fdecea;color:#1a1a1a}"
)


def layout(title: str, body: str, *, head: str = "") -> bytes:
    """A whole page: ``title`` is text (escaped here), ``body`` and ``head`` are markup."""
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title><style>{STYLE}</style>{head}</head>"
        f"<body><main>{body}</main></body></html>"
    ).encode()
