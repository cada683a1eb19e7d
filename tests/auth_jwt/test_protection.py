"""Path protection patterns: exact paths, subtrees, one-segment and many-segment wildcards."""

from __future__ import annotations

import pytest

from fw.auth.protection import (
    MAX_REMEMBERED_PATH_LENGTH,
    MAX_REMEMBERED_PATHS,
    PatternError,
    Protection,
    compile_pattern,
)


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("/api/users", "/api/users", True),
        ("/api/users", "/api/users/", False),
        ("/api/users", "/api/users/7", False),
        ("/api/", "/api/", True),
        ("/api/", "/api/users/7", True),
        ("/api/", "/api", False),
        ("/api/", "/apix/users", False),
        ("/api/{id}", "/api/7", True),
        ("/api/{id}", "/api/7/orders", False),
        ("/api/*/orders", "/api/7/orders", True),
        ("/api/*/orders", "/api//orders", False),
        ("/api/{rest...}", "/api/a/b/c", True),
        ("/api/**", "/api/a/b", True),
        ("/", "/anything/at/all", True),
        ("/a.b", "/aXb", False),
    ],
)
def test_patterns_match_the_paths_they_name(pattern: str, path: str, matches: bool) -> None:
    assert bool(compile_pattern(pattern).fullmatch(path)) is matches


def test_exclude_removes_paths_from_include() -> None:
    protection = Protection.from_patterns(["/api/"], ["/api/health", "/api/public/**"])
    assert protection.requires_auth("/api/orders")
    assert not protection.requires_auth("/api/health")
    assert not protection.requires_auth("/api/public/docs/1")
    assert not protection.requires_auth("/elsewhere")


def test_nothing_is_protected_by_default() -> None:
    assert not Protection.from_patterns([], []).requires_auth("/api/orders")


@pytest.mark.parametrize("pattern", ["api", "//x", "/a//b", "/x/{unclosed", "/x/{}"])
def test_unusable_patterns_are_refused(pattern: str) -> None:
    with pytest.raises(PatternError):
        compile_pattern(pattern)


def test_a_remembered_answer_is_the_answer_the_patterns_give() -> None:
    protection = Protection.from_patterns(["/api/", "/admin/{id}"], ["/api/health", "/api/public/**"])
    paths = ["/api/orders", "/api/health", "/api/public/x", "/admin/7", "/admin/7/x", "/", "/api", "/apix"]
    first = [protection.requires_auth(path) for path in paths]
    again = [protection.requires_auth(path) for path in paths]
    assert first == again == [True, False, False, True, False, False, False, False]


def test_a_flood_of_distinct_or_long_paths_never_grows_the_remembered_answers_past_their_bound() -> None:
    protection = Protection.from_patterns(["/api/"], [])
    for n in range(3 * MAX_REMEMBERED_PATHS):
        assert protection.requires_auth(f"/api/{n}")
        assert len(protection._answers) <= MAX_REMEMBERED_PATHS
    long_path = "/api/" + "x" * MAX_REMEMBERED_PATH_LENGTH
    assert protection.requires_auth(long_path) and protection.requires_auth(long_path)
    assert long_path not in protection._answers
