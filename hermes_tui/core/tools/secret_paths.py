"""The user's secret files under their home: one list, read by every wall.

The files tools ask before reading or writing one (path_policy.py), the shell policy names it
(shell_policy/secrets.py), and the sandbox hides each (sandbox.CREDENTIALS: these and a few
whole folders more), so a path cannot be secret to one and readable through another.
"""

from __future__ import annotations

import fnmatch
import glob
from pathlib import Path

# (path under the home, what it holds), as the question names it.
HOME_SECRETS: tuple[tuple[str, str], ...] = (
    (".ssh", "SSH keys and config"),
    (".gnupg", "GnuPG keys"),
    (".netrc", "machine passwords"),
    (".pgpass", "PostgreSQL passwords"),
    (".git-credentials", "git passwords"),
    (".npmrc", "npm tokens"),
    (".pypirc", "PyPI tokens"),
    (".aws/credentials", "AWS keys"),
    (".aws/sso/cache", "AWS session tokens"),
    (".config/gh/hosts.yml", "GitHub CLI tokens"),
    (".config/hub", "GitHub tokens"),
    (".docker/config.json", "registry passwords"),
    (".kube/config", "Kubernetes credentials"),
    (".config/gcloud", "Google Cloud credentials"),
    (".azure", "Azure credentials"),
    (".password-store", "the password store"),
    (".local/share/keyrings", "the desktop keyring"),
    (".vault-token", "a Vault token"),
    (".terraform.d/credentials.tfrc.json", "Terraform Cloud tokens"),
    (".cargo/credentials", "crates.io tokens"),
    (".cargo/credentials.toml", "crates.io tokens"),
    (".gem/credentials", "RubyGems keys"),
    # Beside a toolchain's programs, where its installer puts them (attack9's A9-1).
    (".cargo/config.toml", "cargo registry tokens"),
    (".cargo/config", "cargo registry tokens"),
    (".pulumi/credentials.json", "Pulumi Cloud tokens"),
    (".wasmer/wasmer.toml", "Wasmer registry tokens"),
    (".npm-global/etc/npmrc", "npm tokens"),
    (".cabal/config", "Hackage passwords"),
    (".config/cabal/config", "Hackage passwords"),
    (".luarocks/upload_config.lua", "LuaRocks keys"),
    (".nimble/github_api_token", "a GitHub token"),
    (".config/rclone/rclone.conf", "cloud storage passwords"),
    (".m2/settings.xml", "Maven repository passwords"),
    (".gradle/gradle.properties", "Gradle repository passwords"),
    (".config/ngrok", "an ngrok token"),
    (".ngrok2", "an ngrok token"),
    (".claude", "Claude Code's credentials"),
    (".claude.json", "Claude Code's credentials"),
    (".codex", "Codex's credentials"),
    (".huggingface", "a Hugging Face token"),
    (".cache/huggingface/token", "a Hugging Face token"),
    (".config/pip/pip.conf", "package index passwords"),
    (".pip/pip.conf", "package index passwords"),
    (".composer/auth.json", "Composer tokens"),
    (".config/composer/auth.json", "Composer tokens"),
    (".databrickscfg", "Databricks tokens"),
    (".fly", "Fly.io tokens"),
    (".config/stripe", "Stripe keys"),
    (".oci", "Oracle Cloud keys"),
    (".config/doctl", "DigitalOcean tokens"),
    (".netlify", "Netlify tokens"),
    (".config/netlify", "Netlify tokens"),
    (".vercel", "Vercel tokens"),
    (".local/share/com.vercel.cli", "Vercel tokens"),
    (".bash_history", "the shell history (passwords typed as arguments)"),
    (".zsh_history", "the shell history (passwords typed as arguments)"),
    (".local/share/fish/fish_history", "the shell history (passwords typed as arguments)"),
    (".python_history", "a REPL history"),
    (".node_repl_history", "a REPL history"),
    (".psql_history", "a database client's history"),
    (".mysql_history", "a database client's history"),
    (".sqlite_history", "a database client's history"),
    (".rediscli_history", "a database client's history"),
)
# The same, where a toolchain keeps one per version: a node's global npmrc (`npm config set
# --location=global`) of nvm, asdf, mise and Volta.
HOME_SECRET_GLOBS: tuple[tuple[str, str], ...] = (
    (".nvm/versions/node/*/etc/npmrc", "npm tokens"),
    (".asdf/installs/nodejs/*/etc/npmrc", "npm tokens"),
    (".local/share/mise/installs/node/*/etc/npmrc", "npm tokens"),
    (".volta/tools/image/node/*/etc/npmrc", "npm tokens"),
)


def globbed(user_home: Path) -> list[Path]:
    """The files of HOME_SECRET_GLOBS that exist now under `user_home`."""
    return [
        Path(p) for pattern, _ in HOME_SECRET_GLOBS for p in glob.glob(f"{user_home}/{pattern}")
    ]


def globbed_kind(relative: str) -> str | None:
    """What a file at `relative` (to the home) holds, by HOME_SECRET_GLOBS; or None."""
    for pattern, what in HOME_SECRET_GLOBS:
        if fnmatch.fnmatchcase(relative, pattern):
            return what
    return None
