"""The one provider definition ``oauth_only`` knows, ``x``: its endpoints, scopes and profile shape.

A provider without ID tokens says who signed in only through an own-user lookup, in its own
spellings; the definition names that lookup and how its fields become the claims fw reads
(``sub``, ``preferred_username``, ``name``, ``picture``), so admission, the identity claim and
the account link work on the same names in every provider.
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True, slots=True)
class OauthProvider:
    """Where to send the browser, where to redeem the code, where to ask who signed in."""

    #: The ``auth.oauth.provider`` value, also the issuer of the account link.
    name: str
    authorization_endpoint: str
    token_endpoint: str
    user_endpoint: str
    #: Requested when ``scopes`` is empty: the fewest that allow the lookup.
    default_scopes: tuple[str, ...]
    #: The lookup's field -> the claim it becomes (the lookup answers ``{"data": {...}}``).
    renames: tuple[tuple[str, str], ...]

    @property
    def reported_claims(self) -> tuple[str, ...]:
        """The claim names a profile of this provider can carry."""
        return tuple(claim for _, claim in self.renames)

    def with_endpoints(
        self, *, authorization_endpoint: str = "", token_endpoint: str = "", user_endpoint: str = ""
    ) -> OauthProvider:
        """This definition with the endpoints given (non-empty) replaced: a stand-in on loopback."""
        return replace(
            self,
            authorization_endpoint=authorization_endpoint or self.authorization_endpoint,
            token_endpoint=token_endpoint or self.token_endpoint,
            user_endpoint=user_endpoint or self.user_endpoint,
        )


X = OauthProvider(
    name="x",
    authorization_endpoint="https://x.com/i/oauth2/authorize",
    token_endpoint="https://api.x.com/2/oauth2/token",
    user_endpoint="https://api.x.com/2/users/me?user.fields=profile_image_url",
    default_scopes=("users.read", "tweet.read"),
    renames=(
        ("id", "sub"),
        ("username", "preferred_username"),
        ("name", "name"),
        ("profile_image_url", "picture"),
    ),
)

#: Every provider definition, by ``auth.oauth.provider`` value.
PROVIDERS: dict[str, OauthProvider] = {X.name: X}
