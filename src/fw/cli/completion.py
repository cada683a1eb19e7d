"""Shell completion for the ``fw`` command: ``fw completion bash|zsh|fish`` prints the script.

The scripts are written from the command table the parser uses, so a new sub-command completes
in every shell without editing three scripts by hand. They complete the sub-commands, the
global options, ``--project`` with directories, the shells after ``fw completion`` and ``new``
after ``fw migrate``; anything further (configuration options, ``fw init``'s flags) is left to
each command's ``--help``.

Install (once per user):

- bash: ``fw completion bash > ~/.local/share/bash-completion/completions/fw``
- zsh: ``fw completion zsh > "${fpath[1]}/_fw"`` (any directory on ``$fpath``), then ``compinit``
- fish: ``fw completion fish > ~/.config/fish/completions/fw.fish``
"""

from __future__ import annotations

from collections.abc import Mapping

SHELLS = ("bash", "zsh", "fish")
#: Options the ``fw`` command itself takes, before the sub-command.
GLOBAL_OPTIONS = {
    "--project": "project directory",
    "--version": "print the fw version",
    "--help": "show help",
}
#: Words that complete after a sub-command.
ARGUMENTS = {"completion": SHELLS, "migrate": ("new",)}


def completion_script(shell: str, commands: Mapping[str, str]) -> str:
    """The completion script for ``shell``; ``commands`` maps each sub-command to its description."""
    if shell == "bash":
        return _bash(commands)
    if shell == "zsh":
        return _zsh(commands)
    if shell == "fish":
        return _fish(commands)
    raise ValueError(f"no completion for {shell!r}; use one of: {', '.join(SHELLS)}")


def _quoted(text: str) -> str:
    """``text`` in single quotes for any of the three shells."""
    return "'" + text.replace("'", "'\\''") + "'"


def _bash(commands: Mapping[str, str]) -> str:
    cases = "".join(
        f"        {name}) words={_quoted(' '.join(words))} ;;\n" for name, words in ARGUMENTS.items()
    )
    return f"""# bash completion for fw (fw completion bash)
_fw() {{
    local cur prev command="" i words=""
    cur="${{COMP_WORDS[COMP_CWORD]}}"
    prev="${{COMP_WORDS[COMP_CWORD-1]}}"
    if [[ "$prev" == "--project" ]]; then
        COMPREPLY=($(compgen -d -- "$cur"))
        return 0
    fi
    for ((i = 1; i < COMP_CWORD; i++)); do
        case "${{COMP_WORDS[i]}}" in
            --project) ((i++)) ;;
            -*) ;;
            *) command="${{COMP_WORDS[i]}}"; break ;;
        esac
    done
    if [[ -z "$command" ]]; then
        COMPREPLY=($(compgen -W {_quoted(" ".join([*commands, *GLOBAL_OPTIONS]))} -- "$cur"))
        return 0
    fi
    case "$command" in
{cases}        *) words="" ;;
    esac
    if [[ -n "$words" && $((COMP_CWORD - i)) -eq 1 ]]; then
        COMPREPLY=($(compgen -W "$words" -- "$cur"))
    fi
    return 0
}}
complete -o default -F _fw fw
"""


def _zsh(commands: Mapping[str, str]) -> str:
    described = "\n".join(f"        {_quoted(f'{name}:{text}')}" for name, text in commands.items())
    cases = "".join(
        f"        ({name}) _values {_quoted(name)} {' '.join(words)} ;;\n"
        for name, words in ARGUMENTS.items()
    )
    return f"""#compdef fw
# zsh completion for fw (fw completion zsh)
_fw() {{
    local -a commands
    commands=(
{described}
    )
    _arguments -C \\
        {_quoted(f"--project[{GLOBAL_OPTIONS['--project']}]:directory:_files -/")} \\
        {_quoted(f"--version[{GLOBAL_OPTIONS['--version']}]")} \\
        '(-h --help)'{{-h,--help}}{_quoted(f"[{GLOBAL_OPTIONS['--help']}]")} \\
        '1:command:->command' \\
        '*::argument:->argument'
    case $state in
    (command) _describe 'fw command' commands ;;
    (argument)
        case $words[1] in
{cases}        (*) _files ;;
        esac ;;
    esac
}}
if [[ "$funcstack[1]" == "_fw" ]]; then
    _fw "$@"
else
    compdef _fw fw
fi
"""


def _fish(commands: Mapping[str, str]) -> str:
    first = f"complete -c fw -n 'not __fish_seen_subcommand_from {' '.join(commands)}'"
    lines = [
        "# fish completion for fw (fw completion fish)",
        "complete -c fw -f",
        f"{first} -l project -r -a '(__fish_complete_directories)' -d {_quoted(GLOBAL_OPTIONS['--project'])}",
        f"{first} -l version -d {_quoted(GLOBAL_OPTIONS['--version'])}",
    ]
    lines += [f"{first} -a {name} -d {_quoted(text)}" for name, text in commands.items()]
    lines += [
        f"complete -c fw -n '__fish_seen_subcommand_from {name}' -a {_quoted(' '.join(words))}"
        for name, words in ARGUMENTS.items()
    ]
    return "\n".join(lines) + "\n"
