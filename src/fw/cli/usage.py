"""What ``fw COMMAND --help`` (or ``-h``) prints: the command's usage and what it does.

Help is answered before the command's own code runs and is text only, so asking for it opens no
database, reads no configuration or ``[tool.fw]``, imports no application and starts nothing, in
a project or anywhere else (DESIGN 10.2). ``fw init`` lists its flags from its own parser.

``run``, ``dev``, ``doctor``, ``migrate`` and ``routes`` also take every configuration option of
the application. fw looks for its own ``-h``/``--help`` only before a ``--``; what follows the
``--`` goes to the configuration unchanged, so ``fw run -- --help`` is the application's
listing of those options.
"""

from __future__ import annotations

from collections.abc import Sequence

HELP_WORDS = ("-h", "--help")
#: The commands that pass the rest of the command line on as configuration options.
CONFIGURED = ("run", "dev", "doctor", "migrate", "routes", "passkey")

_CONFIGURATION = """
Configuration options: every key of the application's configuration is an option here as well
(--server-port 9000, --config-path FILE, ...), read together with config.{{APP_ENV}}.toml, the
.env files and the environment, exactly as the application itself reads them. fw takes -h and
--help for itself only before "--"; everything after "--" goes to the configuration:

  fw {name} -- --help                      list the application's configuration options
  fw {name} -- --generate-config toml|env  print a configuration template

Both import the application and print, and do nothing else.
"""

_USAGE = {
    "generate": (
        "fw [--project DIR] generate",
        """Write the generated code of the project whose pyproject.toml is nearest (or --project DIR):
the request binders (_fw_binders.py) of the [tool.fw.generate] handlers directories, the
configuration loaders (_fw_config.py) of its config directories, and the OpenAPI document.
Prints each file written, or that the generated code is up to date. Takes no arguments.""",
    ),
    "run": (
        "fw [--project DIR] run [CONFIGURATION OPTIONS]",
        """Serve the App that [tool.fw] app names ("module:attribute") with uvicorn on server.host and
server.port. Generated code older than its sources is regenerated first; configuration is parsed,
every startup check runs and the startup summary is printed before anything listens. A
configuration or startup error prints one line and exits 1.""",
    ),
    "dev": (
        "fw [--project DIR] dev [--no-reload] [CONFIGURATION OPTIONS]",
        """Serve for development: as fw run, after regenerating stale generated code, applying pending
database migrations, and starting the development identity provider when [tool.fw.dev.idp]
enabled = true (its variables are injected for the configured auth.mode).

The app reloads on change: a saved Python source, config*.toml, .env file or pyproject.toml
regenerates what is stale (as fw generate) and restarts the app in a new process; the
development provider keeps running, so a signed-in browser stays signed in. A change that does
not load is printed and the last good app keeps serving.

  --no-reload   serve from this one process and do not watch for changes""",
    ),
    "doctor": (
        "fw [--project DIR] doctor [--fix] [CONFIGURATION OPTIONS]",
        """Check without serving: parse the configuration and report its advisories (unknown keys in the
file, no file outside APP_ENV=dev, secrets written into the file, the pillars' rules), check that
the generated code is current, run every startup check, and contact the services the App reaches
only later (an identity provider). Prints each finding as error:, warning: or note:, then what it
checked; exits 1 when any finding is an error.

  --fix   first create the deployment resources fw can create (the DynamoDB table), as fw
          migrate does""",
    ),
    "migrate": (
        'fw [--project DIR] migrate [CONFIGURATION OPTIONS]\n       fw [--project DIR] migrate new "MESSAGE"',
        """Apply pending migrations to the configured database (middleware.rdb.dsn): fw's own tables,
then the application's revisions in the [tool.fw] migrations directory; create the DynamoDB table
when auth.backend or session.backend is dynamo. Only the database settings are needed (the
identity provider's variables that fw dev sets may be missing). A database that a later release
migrated is refused in one line naming its revision and this code's head. Run it before fw doctor.

  new "MESSAGE"   write a new, empty application revision (needs [tool.fw] migrations)""",
    ),
    "routes": (
        "fw [--project DIR] routes [CONFIGURATION OPTIONS]",
        """Print the route table the App serves with this configuration: methods, path, protection (how
[auth.protection] treats the path), the request type the handler binds, and the handler.""",
    ),
    "token": (
        "fw [--project DIR] token [--sub SUB] [--scope S ...] [--ttl 15m] [--audience A ...]",
        """Print an access token that the project's fw dev server accepts, for curl and API clients of a
bearer-token API (auth.mode = jwt_only, the api preset): signed with the key of the development
token issuer that fw dev serves (kept in the project's git-ignored .fw/), for that issuer's URL,
the audience and token type the configuration expects and its required scopes. Only the token
goes to stdout: curl -H "Authorization: Bearer $(fw token)" http://127.0.0.1:8000/me

  --sub SUB        the caller's subject (default: alice, a development user)
  --scope S        a scope the token grants; repeat it (default: auth.jwt.required_scopes)
  --ttl 15m        how long the token lives (default 15m, at most auth.jwt.max_token_lifetime)
  --audience A     the audience; repeat it (default: the first of auth.jwt.audience)

It refuses outside APP_ENV=dev, and before fw dev has created the issuer's key.""",
    ),
    "passkey": (
        "fw [--project DIR] passkey bootstrap LOGIN_ID [--recovery] [--account ID] [CONFIGURATION OPTIONS]",
        """Issue a bootstrap credential in a passkey_only project (fw.auth.issue_bootstrap_credential on
the configured store) and print the login ID, the one-time secret (shown once: fw keeps only its
digest), its expiry and the sign-in URL (auth.login_path on the passkey origin that has
server.port). The person enters them there and registers a passkey. Run fw migrate first.

  --recovery     a credential that adds a passkey to the existing account of LOGIN_ID
  --account ID   enrol into this account ID instead of fw's own account for LOGIN_ID""",
    ),
    "healthcheck": (
        "fw [--project DIR] healthcheck [--ready] [--timeout 3s] [CONFIGURATION OPTIONS]",
        """Ask the running server whether it is alive, for a container's health check without curl:
request http://{server.host}:{server.port}{server.health.live_path} (a server on 0.0.0.0 or ::
is asked on 127.0.0.1 or ::1) and exit 0 when it answers 200, 1 otherwise with one line on
stderr saying why. The configuration is read as fw run reads it (the project's files, the
environment, and the configuration options given here), so the check asks where the server
listens.

  --ready         ask server.health.ready_path instead: 200 only when every store the App
                  uses answers and its keys or provider are loaded
  --timeout 3s    how long the whole request may take (default 3s)""",
    ),
    "completion": (
        "fw completion {bash,zsh,fish}",
        """Print the shell completion script for fw (sub-commands, global options, directories after
--project). Install it once, for example:
  fw completion bash > ~/.local/share/bash-completion/completions/fw""",
    ),
}


def wants_help(arguments: Sequence[str]) -> bool:
    """Whether ``-h`` or ``--help`` comes before the first ``--`` (after it, they are the
    configuration's)."""
    own = arguments[: arguments.index("--")] if "--" in arguments else arguments
    return any(word in HELP_WORDS for word in own)


def command_help(name: str) -> str:
    """The text ``fw NAME --help`` prints."""
    if name == "init":
        from fw.scaffold.command import init_help

        return init_help()
    usage, description = _USAGE[name]
    text = f"usage: {usage}\n\n{description}\n"
    if name in CONFIGURED:
        text += _CONFIGURATION.format(name=name)
    return text
