"""Configuration code generation: register calls in, ``_fw_config.py`` key tables out.

The same three steps as request binding's (:mod:`fw.binding.codegen`): :mod:`.scan` finds the
``register_config`` / ``register_subcommand`` calls and resolves their types, :mod:`.plan` turns
each type into its key table (every per-field refusal), :mod:`.checks` refuses what only shows
across registrations (a key, option or environment name used twice, a ``dependon`` target), and
:mod:`.emit` writes the module. ``fw generate`` (:mod:`fw.generate.config`) only orchestrates.
"""
