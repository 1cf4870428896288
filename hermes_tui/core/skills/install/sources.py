"""Where skills from outside come from: parse a SOURCE, fetch it, lay it out in a temp folder.

A SOURCE is a local folder, a `.zip`/`.tar.gz` (a path, or an https URL), or a git repository (a
URL, or any source written with `#REF`), cloned shallow with the system `git`. `#REF[:SUBDIR]`
picks a tag, branch or commit and a folder inside the source; `#:SUBDIR` a folder alone.
Invariants: a download is https (plain http only to loopback); an archive never unpacks a link,
an absolute path or `..`; the SUBDIR is resolved on disk against the real root of what was
fetched, so a SUBDIR that is (or passes through) a symlink leading outside it is refused.
"""

from __future__ import annotations

import hashlib
import ipaddress
import os
import shutil
import subprocess
import tarfile
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from hermes_tui.core import host_programs

SourceKind = Literal["folder", "archive", "git"]

MAX_DOWNLOAD_BYTES = 50 * 1024 * 1024
MAX_EXTRACTED_BYTES = 100 * 1024 * 1024
MAX_ARCHIVE_MEMBERS = 5_000
ARCHIVE_SUFFIXES = (".zip", ".tar.gz", ".tgz", ".tar")


class InstallError(Exception):
    """A source that cannot be fetched or read, or a skill that may not be installed."""


@dataclass(frozen=True)
class SourceSpec:
    kind: SourceKind
    location: str
    ref: str | None = None
    subdir: str | None = None

    def __str__(self) -> str:
        fragment = ""
        if self.ref or self.subdir:
            fragment = "#" + (self.ref or "") + (f":{self.subdir}" if self.subdir else "")
        return self.location + fragment


def parse_source(text: str, cwd: Path | None = None) -> SourceSpec:
    """`SOURCE[#REF][:SUBDIR]` → what to fetch; local paths are made absolute."""
    text = text.strip()
    if not text or text.startswith("-"):
        raise InstallError(f"{text!r} is not a source: give a folder, an archive or a git URL")
    location, _, fragment = text.partition("#")
    ref, _, subdir = fragment.partition(":")
    ref = ref or None
    if ref and (ref.startswith("-") or any(c.isspace() for c in ref)):
        raise InstallError(f"{ref!r} is not a git ref (a tag, branch or commit id)")
    subdir = subdir.strip("/") or None
    if subdir and (Path(subdir).is_absolute() or ".." in Path(subdir).parts):
        raise InstallError(f"subdirectory {subdir!r} must be a relative path inside the source")
    lowered = location.lower()
    is_url = "://" in location or lowered.startswith("git@")
    if not is_url:
        path = Path(location).expanduser()
        if not path.is_absolute():
            path = (cwd or Path.cwd()) / path
        if not path.exists():
            raise InstallError(f"{path} does not exist")
        location = str(path)
    if lowered.endswith(ARCHIVE_SUFFIXES):
        if ref:
            raise InstallError("an archive has no git ref: drop the #REF part")
        if is_url:
            _check_download_url(location)
        return SourceSpec("archive", location, None, subdir)
    if ref or is_url or lowered.endswith(".git"):
        if is_url:
            scheme = urllib.parse.urlsplit(location).scheme
            if scheme not in ("https", "ssh", "git", "file", "") and not lowered.startswith("git@"):
                raise InstallError(f"git over {scheme}:// is not allowed; use https or ssh")
        return SourceSpec("git", location, ref, subdir)
    if not Path(location).is_dir():
        raise InstallError(
            f"{location} is neither a folder nor a .zip/.tar.gz archive nor a git repository"
        )
    return SourceSpec("folder", location, None, subdir)


def _check_download_url(url: str) -> None:
    """https anywhere; plain http only to this machine (a local mirror, or the tests' server)."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme == "https":
        return
    if parts.scheme == "http":
        host = parts.hostname or ""
        try:
            loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
        except ValueError:
            loopback = False
        if loopback:
            return
    raise InstallError(f"{url}: archives are downloaded over https only")


@dataclass(frozen=True)
class Fetched:
    """A source laid out on disk, with what identifies the exact content fetched."""

    spec: SourceSpec
    root: Path
    commit: str | None = None
    digest: str | None = None


# ---- fetching --------------------------------------------------------------------------------


def _run_git(args: Sequence[str], cwd: Path | None = None, timeout: float = 120) -> str:
    # The git found at start outside the places commands may write (a `.venv/bin/git` a
    # command planted in the project would otherwise run here, unsandboxed).
    found = host_programs.programs()
    try:
        git = found.require("git")
    except host_programs.ProgramRefused as exc:
        raise InstallError(f"{exc}; install git, or use a folder or an archive") from exc
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "true"}
    env["PATH"] = found.env_path()  # what git starts (ssh, remote helpers) is found there too
    command = [git, "-c", "protocol.ext.allow=never", *args]
    try:
        done = subprocess.run(
            command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
        )
    except FileNotFoundError as exc:
        raise InstallError(
            "git is not installed; install it or use a folder or an archive"
        ) from exc
    except subprocess.TimeoutExpired as exc:
        raise InstallError(f"git {args[0]} took longer than {timeout:.0f} s") from exc
    if done.returncode != 0:
        message = (done.stderr or done.stdout).strip().splitlines()
        raise InstallError(f"git {args[0]} failed: {message[-1] if message else done.returncode}")
    return done.stdout.strip()


def _clone(spec: SourceSpec, target: Path) -> str:
    url = spec.location
    if "://" not in url and not url.startswith("git@"):
        url = Path(url).resolve().as_uri()  # file:// so that --depth works on a local repo
    shallow = ["clone", "--quiet", "--depth", "1"]
    try:
        _run_git([*shallow, *(["--branch", spec.ref] if spec.ref else []), "--", url, str(target)])
    except InstallError:
        if not spec.ref:
            raise
        # A commit id is not a branch or tag: fetch everything, then check it out.
        shutil.rmtree(target, ignore_errors=True)
        _run_git(["clone", "--quiet", "--", url, str(target)])
        commit = _run_git(
            ["rev-parse", "--verify", "--end-of-options", f"{spec.ref}^{{commit}}"], cwd=target
        )
        _run_git(["checkout", "--quiet", "--detach", commit], cwd=target)
    return _run_git(["rev-parse", "HEAD"], cwd=target)


def _download(url: str, target: Path) -> None:
    _check_download_url(url)
    request = urllib.request.Request(url, headers={"User-Agent": "hermes-tui skills install"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response, target.open("wb") as out:
            received = 0
            while chunk := response.read(1 << 16):
                received += len(chunk)
                if received > MAX_DOWNLOAD_BYTES:
                    raise InstallError(f"{url}: larger than {MAX_DOWNLOAD_BYTES >> 20} MiB")
                out.write(chunk)
    except urllib.error.HTTPError as exc:
        raise InstallError(f"{url}: the server answered {exc.code} {exc.reason}") from exc
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise InstallError(f"{url}: could not download ({reason})") from exc


def _extract(archive: Path, target: Path) -> None:
    """Extract refusing links, absolute paths, `..`, and archives that unpack past the limits."""
    name = archive.name.lower()
    total = 0
    try:
        if name.endswith(".zip"):
            with zipfile.ZipFile(archive) as bundle:
                members = bundle.infolist()
                if len(members) > MAX_ARCHIVE_MEMBERS:
                    raise InstallError(f"{archive.name}: more than {MAX_ARCHIVE_MEMBERS} entries")
                for info in members:
                    _check_member(archive, info.filename)
                    if (info.external_attr >> 16) & 0o170000 == 0o120000:
                        raise InstallError(f"{archive.name}: {info.filename} is a symbolic link")
                    total += info.file_size
                if total > MAX_EXTRACTED_BYTES:
                    raise InstallError(f"{archive.name}: unpacks to more than 100 MiB")
                bundle.extractall(target)
        else:
            with tarfile.open(archive) as bundle:
                members = bundle.getmembers()
                if len(members) > MAX_ARCHIVE_MEMBERS:
                    raise InstallError(f"{archive.name}: more than {MAX_ARCHIVE_MEMBERS} entries")
                for member in members:
                    _check_member(archive, member.name)
                    if member.issym() or member.islnk():
                        raise InstallError(f"{archive.name}: {member.name} is a link")
                    if not (member.isfile() or member.isdir()):
                        raise InstallError(f"{archive.name}: {member.name} is not a plain file")
                    total += member.size
                if total > MAX_EXTRACTED_BYTES:
                    raise InstallError(f"{archive.name}: unpacks to more than 100 MiB")
                bundle.extractall(target, filter="data")
    except (zipfile.BadZipFile, tarfile.TarError, EOFError) as exc:
        raise InstallError(f"{archive.name}: not a readable archive ({exc})") from exc


def _check_member(archive: Path, member: str) -> None:
    parts = Path(member).parts
    if member.startswith(("/", "\\")) or ".." in parts or (parts and ":" in parts[0]):
        raise InstallError(f"{archive.name}: entry {member!r} points outside the archive")


@contextmanager
def fetch(spec: SourceSpec) -> Iterator[Fetched]:
    """Lay the source out in a temporary folder (removed afterwards) and yield it."""
    with tempfile.TemporaryDirectory(prefix="hermes-install-") as temp:
        work = Path(temp)
        commit = digest = None
        if spec.kind == "folder":
            root = Path(spec.location)
        elif spec.kind == "git":
            root = work / "repo"
            commit = _clone(spec, root)
        else:
            archive = work / Path(urllib.parse.urlsplit(spec.location).path).name
            if "://" in spec.location:
                _download(spec.location, archive)
            else:
                shutil.copyfile(spec.location, archive)
            digest = "sha256:" + hashlib.sha256(archive.read_bytes()).hexdigest()
            root = work / "unpacked"
            root.mkdir()
            _extract(archive, root)
        if spec.subdir:
            root = resolve_subdir(spec, root)
        yield Fetched(spec, root, commit, digest)


def resolve_subdir(spec: SourceSpec, root: Path) -> Path:
    """The SUBDIR as it is on disk: a folder whose real path lies inside the source's real root.

    The text was checked for `..` when parsed; this catches what the text cannot show, a SUBDIR
    (or a folder on the way to it) that is a symlink, in a cloned repository or a local folder.
    """
    real_root = root.resolve()
    target = root / (spec.subdir or "")
    real = Path(os.path.realpath(target))
    if real != real_root and real_root not in real.parents:
        raise InstallError(
            f"{spec}: {spec.subdir!r} leads outside the source (a symlink to {real}); refused"
        )
    if not real.is_dir():
        raise InstallError(f"{spec}: no folder {spec.subdir!r} in the source")
    return real
