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
CONFIGURED = ("run", "dev", "doctor", "migrate", "routes")

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
        "fw [--project DIR] dev [CONFIGURATION OPTIONS]",
        """Serve for development: as fw run, after regenerating stale generated code, applying pending
database migrations, and starting the development identity provider when [tool.fw.dev.idp]
enabled = true (its variables are injected for the configured auth.mode).""",
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
when auth.backend or session.backend is dynamo.

  new "MESSAGE"   write a new, empty application revision (needs [tool.fw] migrations)""",
    ),
    "routes": (
        "fw [--project DIR] routes [CONFIGURATION OPTIONS]",
        """Print the route table the App serves with this configuration: methods, path, protection (how
[auth.protection] treats the path), the request type the handler binds, and the handler.""",
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
