"""core/redaction/recognise.py: which variables, config entries and arguments hold secrets,
one answer for the sandbox's scrub of the environment and for the redaction (ATTACK.md A4-24,
A4-29, A4-9, A4-25), and which ordinary ones must not be touched."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_tui.core.redaction import Redactor, collect_secrets
from hermes_tui.core.redaction.recognise import (
    arg_secrets,
    looks_like_secret_value,
    scrubbed,
    tree_secrets,
    variable_secrets,
)
from hermes_tui.core.tools.mcp_config import McpServerConfig, server_secrets
from hermes_tui.core.tools.sandbox import scrubbed_env

# What a developer's shell holds: none of it is a secret, all of it reaches commands.
ORDINARY = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "HOME": "/home/u",
    "PWD": "/home/u/proj",
    "OLDPWD": "/home/u",
    "SHELL": "/bin/bash",
    "LANG": "en_US.UTF-8",
    "TERM": "xterm-256color",
    "EDITOR": "vim",
    "XDG_SESSION_TYPE": "wayland",
    "XDG_SESSION_ID": "2",
    "XDG_SESSION_DESKTOP": "ubuntu",
    "XDG_CONFIG_HOME": "/home/u/.config",
    "XDG_DATA_DIRS": "/usr/local/share:/usr/share",
    "DESKTOP_SESSION": "ubuntu",
    "GDMSESSION": "ubuntu",
    "SESSION_MANAGER": "local/box:@/tmp/.ICE-unix/2345,unix/box:/tmp/.ICE-unix/2345",
    "GIT_AUTHOR_NAME": "Jane Doe",
    "GIT_AUTHOR_EMAIL": "jane@example.com",
    "HOMEPAGE": "https://example.com",
    "PIP_INDEX_URL": "https://pypi.org/simple",
    "GOPROXY": "https://proxy.golang.org,direct",
    "LS_COLORS": "rs=0:di=01;34:ln=01;36",
    "VIRTUAL_ENV": "/home/u/proj/.venv",
    "JAVA_HOME": "/usr/lib/jvm/java-17-openjdk-amd64",
    "CONDA_PREFIX": "/opt/conda/envs/py311",
    "PS1": "\\u@\\h:\\w$ ",
    "KUBECONFIG_DIR": "/home/u/.kube",
    "COMMIT_SHA": "9f8e7d6c5b4a39281706f5e4d3c2b1a0deadbeef",
    "GOPRIVATE": "github.com/myorg/*",
    "GONOSUMDB": "github.com/myorg/*",
    "XDG_SESSION_PATH": "/org/freedesktop/DisplayManager/Session0",
    "TERM_SESSION_ID": "w0t0p0:8A9C3F2E-1B4D-4E6F-9A8B-7C6D5E4F3A2B",
    "KONSOLE_DBUS_SESSION": "/Sessions/1",
    "http_proxy": "http://proxy.corp.example:3128",
    "NODE_OPTIONS": "--max-old-space-size=4096",
    "CLAUDE_SESSION_ID": "8a9c3f2e-1b4d-4e6f-9a8b-7c6d5e4f3a2b",
    "LESS": "-R -F key=value",
    "WT_SESSION": "0b8b8e6a-4c1f-4e0e-9a1b-2c3d4e5f6a7b",
    "BASE_IMAGE": "python:3.11-slim@sha256:9f8e7d6c5b4a39281706f5e4d3c2b1a0deadbeef9f8e7d6c5b4a3928",
    "EDITOR_SETTINGS_JSON": '{"keybinding": "ctrl+k", "theme": "dark"}',
    # attack5's A5-4: switches, numbers, host names and URLs without credentials.
    "TOKENIZERS_PARALLELISM": "false",
    "OAUTHLIB_INSECURE_TRANSPORT": "1",
    "KEYTIMEOUT": "1",
    "NEXTAUTH_URL": "http://localhost:3000",
    "AUTH0_DOMAIN": "myapp.eu.auth0.com",
    "PRIVATE_REGISTRY": "registry.corp.example:5000",
    "GIT_CONFIG_COUNT": "1",
    "GIT_CONFIG_KEY_0": "safe.directory",
    "GIT_CONFIG_VALUE_0": "/home/u/proj",
}
# Secrets under names without KEY/TOKEN/SECRET/PASSWORD, each with what must be known.
HIDDEN = {
    "DATABASE_URL": ("postgres://app:Pq7wRt2xLm9zKs4v@db/app", "Pq7wRt2xLm9zKs4v"),
    "MONGODB_URI": ("mongodb+srv://app:Mg7wLq2xRt9zKp4v@c0.example.net/db", "Mg7wLq2xRt9zKp4v"),
    "CACHE": ("redis://:Rd5kLq8wMz3xTv7p@cache:6379/0", "Rd5kLq8wMz3xTv7p"),
    "GIT_REMOTE": ("https://Gh7kQz2LmX7tR9vNp4Ys@github.com/o/r.git", "Gh7kQz2LmX7tR9vNp4Ys"),
    "SLACK_HOOK": (
        "https://hooks.slack.com/services/T0A/B0B/Wh8kQz2LmX7tR9vNp4Ys6Bc1",
        "Wh8kQz2LmX7tR9vNp4Ys6Bc1",
    ),
    "DISCORD_URL": (
        "https://discord.com/api/webhooks/123456789012345678/Dk3jW9xLq2Zt7Rv5Mp8Bn4Hc6Yf1Gs0",
        "Dk3jW9xLq2Zt7Rv5Mp8Bn4Hc6Yf1Gs0",
    ),
    "SENTRY_DSN": ("https://9f8e7d6c5b4a3928@o1.ingest.sentry.io/1", "9f8e7d6c5b4a3928"),
    "SEARCH": ("https://api.example/v1?q=x&access_token=Ur4kTq8zWn2vLx6p", "Ur4kTq8zWn2vLx6p"),
    "MY_GH": (
        "ghp_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2",
        "ghp_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2",
    ),
    "GITHUB_PAT": ("Gp9qLm2ZtR7wPk4sXy8Vb3Nc", "Gp9qLm2ZtR7wPk4sXy8Vb3Nc"),
    "STRIPE_SK": ("St7kQ9wLz4Xt8Rv5Mp3Bq6Hy", "St7kQ9wLz4Xt8Rv5Mp3Bq6Hy"),
    "NPM_CONFIG__AUTH": ("bnBtOnNlY3JldDEyMzQ1Njc4OTA=", "bnBtOnNlY3JldDEyMzQ1Njc4OTA="),
    "AUTH_HEADER": ("Ah8Lq3Wz7Tk2Xv9Rm5NpQs4", "Ah8Lq3Wz7Tk2Xv9Rm5NpQs4"),
    "SESSION_COOKIE": ("Sc4Mw8Qz2Lt6Xk9Vp3BnRt7", "Sc4Mw8Qz2Lt6Xk9Vp3BnRt7"),
    "AOC_SESSION": ("53616c7465645f5fa3b9c1d2e4f60718", "53616c7465645f5fa3b9c1d2e4f60718"),
    "ENCRYPTION_SALT": ("Es5Nk2Qw8Lz3Xt7Rv9Mp4Bq", "Es5Nk2Qw8Lz3Xt7Rv9Mp4Bq"),
    "TWILIO_SID": ("AC1234567890abcdef1234567890abcd", "AC1234567890abcdef1234567890abcd"),
    "APP_PRIVATE_PEM_B64": ("UHJpdjhLZXk5UXc0THo3WHQyUnY=", "UHJpdjhLZXk5UXc0THo3WHQyUnY="),
    "MYSQL_PWD": ("My7pQw2Lz9Xk4Rt", "My7pQw2Lz9Xk4Rt"),
    "SMTP_PASS": ("Sm7pQw2Lz9Xk4Rt", "Sm7pQw2Lz9Xk4Rt"),
    "WEBHOOK_SIGNING": ("Ws7pQw2Lz9Xk4Rt", "Ws7pQw2Lz9Xk4Rt"),
    "CONN": ("Server=db;User Id=app;Password=Cn7wRt2xLm;Database=x", "Cn7wRt2xLm"),
    "PGCONN": ("host=db user=app password=Pg7wRt2xLm dbname=x", "Pg7wRt2xLm"),
    "JDBC": ("jdbc:postgresql://db/app?user=app&password=Jd7wRt2xLm9z", "Jd7wRt2xLm9z"),
    "ENCODED": ("postgres://app:p%40ss%2Fw0rdXyz@db/app", "p@ss/w0rdXyz"),
    # attack5: A5-1 names, A5-2 values, A5-3 base64, A5-7 URL passwords holding / ? # '.
    "SSHPASS": ("Zqa4ayc80OGda4BO1oV0", "Zqa4ayc80OGda4BO1oV0"),
    "CREDS_PSW": ("Jk4ayc80OGda4BO1oV0q", "Jk4ayc80OGda4BO1oV0q"),
    "LDAP_BINDPW": ("Ld4ayc80OGda4BO1oV0q", "Ld4ayc80OGda4BO1oV0q"),
    "DBPASS": ("Db4ayc80OGda4BO1oV0q", "Db4ayc80OGda4BO1oV0q"),
    "ODBC": ("Driver={ODBC 18};Server=db;UID=sa;PWD=Od4ayc80OGda4BO;", "Od4ayc80OGda4BO"),
    "ORACLE_CONN": ("scott/Or4ayc80OGda4BO@db.example:1521/ORCL", "Or4ayc80OGda4BO"),
    "NOSCHEME_DB": ("app:Ns4ayc80OGda4BO@db.internal:5432/app", "Ns4ayc80OGda4BO"),
    "SPRING_APPLICATION_JSON": (
        '{"spring.datasource.password": "Sp4ayc80OGda4BO"}',
        "Sp4ayc80OGda4BO",
    ),
    "JAVA_TOOL_OPTIONS": ("-Djavax.net.ssl.keyStorePassword=Jt4ayc80OGda4BO", "Jt4ayc80OGda4BO"),
    "NETRC_DATA": ("machine h login u password Nr4ayc80OGda4BO", "Nr4ayc80OGda4BO"),
    "REGISTRY_BASIC": ("ZGVwbG95OlJiNGF5YzgwT0dkYTRCTw==", "ZGVwbG95OlJiNGF5YzgwT0dkYTRCTw=="),
    "SLASH_URL": ("postgresql://app:Zk9a/B3Qw7eRt7uIo@db/app", "Zk9a/B3Qw7eRt7uIo"),
    "QMARK_URL": ("mysql://app:Xm4q?Lp8Wz2Rt6Yn@db/app", "Xm4q?Lp8Wz2Rt6Yn"),
    "HASH_URL": ("postgres://app:ab#Hs4ayc80OGda@db/x", "ab#Hs4ayc80OGda"),
    "PLUS_QUERY": ("https://db.example/x?password=Zk9a+B3Qw7eRt7uIo", "Zk9a+B3Qw7eRt7uIo"),
}


def test_ordinary_variables_are_neither_scrubbed_nor_known() -> None:
    assert scrubbed_env(ORDINARY) == ORDINARY
    assert collect_secrets({}, ORDINARY) == {}
    assert Redactor(collect_secrets({}, ORDINARY)).text(str(ORDINARY)) == str(ORDINARY)


@pytest.mark.parametrize("name", sorted(HIDDEN))
def test_a_secret_under_any_name_is_scrubbed_and_known(name: str) -> None:
    value, part = HIDDEN[name]
    assert scrubbed(name, value)
    assert name not in scrubbed_env({name: value, "PATH": "/bin"})
    redact = Redactor(collect_secrets({}, {name: value})).text
    # Printed whole or its credential alone: neither comes through.
    for printed in (f"{name}={value}", f"the password is {part} here"):
        assert part not in redact(printed), printed


def test_a_numeric_password_is_a_secret_a_port_is_not() -> None:
    assert scrubbed("DB_PASSWORD", "48151623") and not scrubbed("REDIS_KEY_PORT", "6379")


def test_git_config_variables_go_together() -> None:
    """A5-4: GIT_CONFIG_KEY_0 gone while GIT_CONFIG_COUNT stays makes every git command fail."""
    git = {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "http.extraHeader"}
    kept = scrubbed_env({**git, "GIT_CONFIG_VALUE_0": "AUTHORIZATION: bearer Zk9aB3Qw7eRt7uIo"})
    assert kept == {}
    assert scrubbed_env({**git, "GIT_CONFIG_VALUE_0": "x"}) == {**git, "GIT_CONFIG_VALUE_0": "x"}


def test_mcp_headers_and_passphrases_in_args_are_secrets() -> None:
    """A5-5: mcp-remote's --header "X-API-Key: k", a Basic header, a passphrase after a flag."""
    found = arg_secrets(
        [
            "mcp-remote",
            "https://mcp.example/sse",
            "--header",
            "X-API-Key: Hk4ayc80OGda4BO1",
            "--header",
            "Authorization:Basic ZGVwbG95OlJiNGF5YzgwT0dkYTRCTw==",
            "--passphrase",
            "correct-horse-battery-staple",
            "-p",
            "tulip-orbit-lantern-cobalt",
            "--profile",
            "production",
            "-p",
            "staging",
        ]
    )
    assert "tulip-orbit-lantern-cobalt" in found
    assert "production" not in found and "staging" not in found
    assert "Hk4ayc80OGda4BO1" in found and "correct-horse-battery-staple" in found
    assert "ZGVwbG95OlJiNGF5YzgwT0dkYTRCTw==" in found


def test_a_short_url_password_is_scrubbed_though_too_short_to_redact() -> None:
    assert scrubbed_env({"DB": "postgres://app:pw12@db/app", "PATH": "/bin"}) == {"PATH": "/bin"}


def test_a_passed_through_secret_reaches_commands_and_stays_known() -> None:
    value = HIDDEN["DATABASE_URL"][0]
    assert scrubbed_env({"DATABASE_URL": value}, ["DATABASE_URL"]) == {"DATABASE_URL": value}
    # The path to a credentials file is scrubbed (it tells where one is), not known.
    assert scrubbed("GOOGLE_APPLICATION_CREDENTIALS", "/home/u/.config/gcloud/sa.json")
    assert variable_secrets("GOOGLE_APPLICATION_CREDENTIALS", "/home/u/.config/gcloud/a.json") == []


@pytest.mark.parametrize(
    "value", ["/x9Kq2mZpQ7", "~/secretZq9xWv3", ".Zq9xWv3pLk", "/Zk9aB3+Qw/eRt7uIoPl2Xc"]
)
def test_a_secret_starting_like_a_path_is_known(value: str) -> None:
    """A4-29: about one base64 secret in 64 begins with `/`."""
    assert looks_like_secret_value(value)
    assert collect_secrets({}, {"X_SECRET": value}) == {"X_SECRET": value}
    assert collect_secrets({"HMAC": value}, {}) == {"HMAC": value}
    assert value not in Redactor({"HMAC": value}).text(f"key={value}")


@pytest.mark.parametrize(
    "value",
    [
        "/usr/share/X11/xkb",
        "~/.config/app/settings.json",
        "./node_modules/.bin",
        "/opt/Python-3.11.4/bin",
        "/home/User1/myProject/key.pem",
        "/usr/lib/x86_64-linux-gnu",
    ],
)
def test_a_path_under_a_secret_name_is_not_known(value: str) -> None:
    assert not looks_like_secret_value(value)
    assert collect_secrets({}, {"SSH_KEY_PATH": value}) == {}


def test_a_path_that_exists_is_a_path(tmp_path: Path) -> None:
    folder = tmp_path / "aB3xQ9zLkW"
    folder.mkdir()
    assert not looks_like_secret_value(str(folder))


def test_arguments_after_secret_flags_and_in_urls_are_secrets() -> None:
    args = [
        "-y",
        "@modelcontextprotocol/server-github",
        "--api-key",
        "Bx9qLm2ZtR7wPk4s",
        "--token=Zz9qLm2ZtR7wPk4s",
        "-k",
        "Kk9qLm2ZtR7wPk4s",
        "-e",
        "GITHUB_TOKEN=Tq8wLm3ZxR7vPk2sNy5Bc9Hd",
        "--dsn",
        "postgres://app:Pq7wRt2xLm9zKs4v@db/app",
        "--port",
        "8080",
        "-t",
        "latest",
        "--api-key-file",
        "/run/secrets/key",
        "--api-key",
        "${SEARCH_KEY}",
    ]
    found = arg_secrets(args)
    for secret in ("Bx9qLm2ZtR7wPk4s", "Zz9qLm2ZtR7wPk4s", "Kk9qLm2ZtR7wPk4s"):
        assert secret in found
    assert "Tq8wLm3ZxR7vPk2sNy5Bc9Hd" in found and "Pq7wRt2xLm9zKs4v" in found
    for ordinary in ("8080", "latest", "/run/secrets/key", "${SEARCH_KEY}", "-y"):
        assert ordinary not in found
    assert not any("modelcontextprotocol" in item for item in found)


def test_config_secrets_are_found_where_hermes_and_mcp_readmes_put_them() -> None:
    tree = {
        "model": {"api_key": "Hk7vLq2ZtR9wPx4sMn8B", "default": "anthropic/claude-sonnet-4"},
        "delegation": {"api_key_env": "OPENAI_API_KEY"},  # names a variable: no secret
        "display": {"toggle_key": "ctrl+shift+k"},
        "terminal": {"env_passthrough": ["GITHUB_TOKEN"]},
        "mcp_servers": {
            "s": {"command": "npx", "args": ["--api-key", "Bx9qLm2ZtR7wPk4s"]},
            "r": {"url": "https://mcp.example.com/sse?apikey=Ur4kTq8zWn2vLx6p"},
        },
    }
    found = set(tree_secrets(tree).values())
    assert found == {"Hk7vLq2ZtR9wPx4sMn8B", "Bx9qLm2ZtR7wPk4s", "Ur4kTq8zWn2vLx6p"}


def test_mcp_server_settings_give_their_secrets() -> None:
    servers = [
        McpServerConfig(
            name="db",
            command="db-mcp",
            args=("--token", "Zz9qLm2ZtR7wPk4s"),
            env={"DATABASE_URL": "postgres://app:Pq7wRt2xLm9zKs4v@db/app", "LOG_LEVEL": "debug"},
        ),
        McpServerConfig(
            name="r",
            url="https://u:Up4kTq8zWn2vLx6p@mcp.example.com/sse?key=Ur4kTq8zWn2vLx6p",
            headers={"X-Api-Key": "Hx7vLq2ZtR9wPx4s", "Accept": "application/json"},
        ),
    ]
    servers.append(
        McpServerConfig(
            name="z", url="https://mcp.zapier.com/api/mcp/s/ODk2ZGQ1YTEtZWJkMi00YjQ1LWE3/mcp"
        )
    )
    found = set(server_secrets(servers).values())
    assert "ODk2ZGQ1YTEtZWJkMi00YjQ1LWE3" in found and "mcp" not in found
    for secret in ("Zz9qLm2ZtR7wPk4s", "Pq7wRt2xLm9zKs4v", "Up4kTq8zWn2vLx6p", "Ur4kTq8zWn2vLx6p"):
        assert secret in found
    assert "Hx7vLq2ZtR9wPx4s" in found and "debug" not in found
    assert "application/json" not in found


def test_a_redactor_learns_secrets_in_place() -> None:
    redactor = Redactor({"DB_TOKEN": "Vr7kumquatSecret55aa19xq"})
    text = redactor.text  # held by stores and sinks before the editor's servers come
    redactor.learn({"SERVICE_TOKEN": "Tq8wLm3ZxR7vPk2sNy5Bc9Hd"})
    assert text("a Tq8wLm3ZxR7vPk2sNy5Bc9Hd b") == "a [REDACTED SERVICE_TOKEN] b"
    assert text("Vr7kumquatSecret55aa19xq") == "[REDACTED DB_TOKEN]"
    redactor.learn({"DB_TOKEN": "Other7kumquatSecret55zz"})  # a label taken: a second one
    assert text("Other7kumquatSecret55zz") == "[REDACTED DB_TOKEN (2)]"
