"""Skills from outside: fetch a source, vet every skill in it, install with provenance `hub`.

A SOURCE is a local folder, a `.zip`/`.tar.gz` (a path, or an https URL), or a git repository (a
URL, or any source written with `#REF`), cloned shallow with the system `git`. `#REF[:SUBDIR]`
picks a tag, branch or commit and a folder inside the source; `#:SUBDIR` a folder alone.
Every SKILL.md found in the source (at any depth, dot-folders skipped) is a candidate. A
candidate is installed only if it parses, has a name we would write ourselves, fits the size
limits, and passes the skill guard (which carries the injection patterns): a dangerous one is
refused with its findings, a cautious one needs `force`. What was installed, from where, at which
commit or digest, is recorded in `skills/.hub.json` (the lock), which `update` and `uninstall`
read. The curator and reviews only touch agent-created skills, so hub skills are left alone.
"""

from __future__ import annotations

import difflib
import hashlib
import ipaddress
import json
import os
import re
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from hermes_tui.core.skills import frontmatter, guard
from hermes_tui.core.skills.frontmatter import SkillFormatError
from hermes_tui.core.skills.library import SkillLibrary
from hermes_tui.core.skills.model import DEFAULT_CATEGORY, MAX_SUPPORT_BYTES, SkillError
from hermes_tui.core.skills.usage import iso_now
from hermes_tui.core.storage import atomic_write_text, file_lock

SourceKind = Literal["folder", "archive", "git"]
Verdict = Literal["invalid", "dangerous", "caution", "safe"]

MAX_DOWNLOAD_BYTES = 50 * 1024 * 1024
MAX_EXTRACTED_BYTES = 100 * 1024 * 1024
MAX_ARCHIVE_MEMBERS = 5_000
ARCHIVE_SUFFIXES = (".zip", ".tar.gz", ".tgz", ".tar")
SKIPPED_DIRS = {".git", ".hg", ".svn", "__pycache__", "node_modules", ".archive"}


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


@dataclass(frozen=True)
class Candidate:
    name: str
    directory: Path
    relative: str
    category: str
    description: str = ""
    problems: tuple[str, ...] = ()
    report: guard.GuardReport = field(default_factory=lambda: guard.GuardReport("safe", ()))

    @property
    def verdict(self) -> Verdict:
        return "invalid" if self.problems else self.report.verdict

    def explain(self) -> str:
        if self.problems:
            return "; ".join(self.problems)
        return "; ".join(
            f"{f.id} in {f.file}{f':{f.line}' if f.line else ''}: {f.description}"
            for f in self.report.findings
        )


@dataclass(frozen=True)
class InstallResult:
    name: str
    path: Path
    verdict: Verdict
    findings: tuple[guard.GuardFinding, ...] = ()


@dataclass(frozen=True)
class UpdateResult:
    name: str
    status: Literal["updated", "up to date", "refused", "would update", "missing"]
    diff: str = ""
    message: str = ""
    verdict: Verdict = "safe"


# ---- fetching --------------------------------------------------------------------------------


def _run_git(args: Sequence[str], cwd: Path | None = None, timeout: float = 120) -> str:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "true"}
    command = ["git", "-c", "protocol.ext.allow=never", *args]
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
            root = root / spec.subdir
            if not root.is_dir():
                raise InstallError(f"{spec}: no folder {spec.subdir!r} in the source")
        yield Fetched(spec, root, commit, digest)


# ---- vetting -----------------------------------------------------------------------------------


def find_candidates(root: Path, category: str | None = None) -> list[Candidate]:
    """Every skill folder under `root`, each validated and scanned."""
    found: list[Candidate] = []
    for directory, subdirs, files in os.walk(root):
        subdirs[:] = sorted(d for d in subdirs if not d.startswith(".") and d not in SKIPPED_DIRS)
        if "SKILL.md" in files:
            found.append(_vet(root, Path(directory), category))
            subdirs[:] = []  # a skill's own folders are its files, not more skills
    return found


def _vet(root: Path, directory: Path, category: str | None) -> Candidate:
    relative = str(directory.relative_to(root)) if directory != root else "."
    problems: list[str] = []
    name, description = directory.name, ""
    skill_md = directory / "SKILL.md"
    try:
        document = frontmatter.parse(skill_md.read_bytes().decode("utf-8"), f"{relative}/SKILL.md")
        name, description = document.name, document.description
        if problem := frontmatter.check_name(name):
            problems.append(problem)
    except UnicodeDecodeError:
        problems.append(f"{relative}/SKILL.md is not valid UTF-8")
    except SkillFormatError as exc:
        problems.append(str(exc))
    for path in directory.rglob("*"):
        if path.is_file() and not path.is_symlink() and path.stat().st_size > MAX_SUPPORT_BYTES:
            problems.append(
                f"{path.relative_to(directory)} is {path.stat().st_size:,} bytes "
                f"(over {MAX_SUPPORT_BYTES:,})"
            )
    report = guard.scan_directory(directory)
    extra = shell_findings(directory) + text_findings(directory, description)
    seen = {(f.file, f.line, f.id) for f in report.findings}
    extra = [f for f in extra if (f.file, f.line, f.id) not in seen]
    if extra:
        findings = (*report.findings, *extra)
        report = guard.GuardReport(_worst(report.verdict, extra), findings)
    parent = Path(relative).parent.name if relative != "." else ""
    chosen = category or (parent if parent and not frontmatter.check_name(parent) else "")
    return Candidate(
        name=name,
        directory=directory,
        relative=relative,
        category=chosen or DEFAULT_CATEGORY,
        description=description,
        problems=tuple(problems),
        report=report,
    )


_FENCE = re.compile(r"^```(?:bash|sh|shell|zsh|console)?[ \t]*\n(.*?)^```", re.M | re.S)
_SCRIPT_SUFFIXES = (".sh", ".bash", ".zsh")


def shell_findings(directory: Path) -> list[guard.GuardFinding]:
    """What the shell policy says of every command the skill would have the agent run.

    A playbook's shell blocks and scripts are commands the agent will later run on the user's
    machine, so they are judged now as the terminal would judge them: a command the policy
    would ask about makes the skill "caution" (install needs --force), one it refuses makes it
    "dangerous". The working directory assumed is a project folder the skill is used in.
    """
    from hermes_tui.core.tools.shell_policy import decide

    workdir, home = "/home/user/project", "/home/user"
    findings: list[guard.GuardFinding] = []
    for path in sorted(directory.rglob("*")):
        if not path.is_file() or path.is_symlink():
            continue
        relative = str(path.relative_to(directory))
        if path.suffix in _SCRIPT_SUFFIXES:
            blocks = [(1, _read_text(path))]
        elif path.suffix == ".md":
            text = _read_text(path)
            blocks = [
                (text[: m.start(1)].count("\n") + 1, m.group(1)) for m in _FENCE.finditer(text)
            ]
        else:
            continue
        for line, block in blocks:
            script = "\n".join(
                row[2:] if row.startswith("$ ") else row for row in block.splitlines()
            )  # console transcripts: the commands after the prompt
            if not script.strip():
                continue
            verdict = decide(script, workdir, workdir, home)
            if verdict.action == "allow":
                continue
            findings.append(
                guard.GuardFinding(
                    relative,
                    line,
                    "shell_policy_" + verdict.action,
                    "command",
                    "high" if verdict.action == "deny" else "medium",
                    f"the terminal would {'refuse' if verdict.action == 'deny' else 'ask before'} "
                    f"running this: {verdict.reason}"[:300],
                )
            )
    return findings


def text_findings(directory: Path, description: str) -> list[guard.GuardFinding]:
    """The injection scanner (ours + xaidr, over decoded views) on what the agent will read.

    The description goes into every session's skills index, so it gets the whole scanner, as
    memory does. The Markdown is what the agent reads when it loads the skill: it gets our own
    patterns over every decoded view, a paragraph at a time so a finding names its line (the
    library reads prose about security, such as our own shell-safety skill, as attacks). A
    finding the scanner would refuse in memory makes the skill dangerous, one it would hold
    makes it "caution".
    """
    from hermes_tui.core.threats import Scanner, scan, tier_of

    findings: list[guard.GuardFinding] = []
    for finding in Scanner().assess(description).findings:
        findings.append(_as_guard_finding("SKILL.md", None, finding, tier_of(finding)))
    pieces: list[tuple[str, int, str]] = []
    for path in sorted(directory.rglob("*.md")):
        if path.is_symlink() or not path.is_file():
            continue
        relative = str(path.relative_to(directory))
        line = 1
        for paragraph in re.split(r"(\n[ \t]*\n)", _read_text(path)):
            if paragraph.strip():
                pieces.append((relative, line, paragraph))
            line += paragraph.count("\n")
    for relative, line, text in pieces:
        for finding in scan(text):
            findings.append(_as_guard_finding(relative, line, finding, tier_of(finding)))
    return list(dict.fromkeys(findings))


def _as_guard_finding(file: str, line: int | None, finding: Any, tier: str) -> guard.GuardFinding:
    return guard.GuardFinding(
        file,
        line,
        finding.id,
        finding.category,
        "high" if tier == "refuse" else "medium",
        ("description: " if line is None else "") + finding.description,
    )


def _read_text(path: Path) -> str:
    data = path.read_bytes()
    return "" if b"\x00" in data[:8192] else data.decode("utf-8", errors="replace")


def _worst(verdict: guard.Verdict, extra: list[guard.GuardFinding]) -> guard.Verdict:
    if verdict == "dangerous" or any(f.severity in ("high", "critical") for f in extra):
        return "dangerous"
    return "caution"


def tree_digest(directory: Path) -> str:
    """sha256 over the relative paths and bytes of every file: what exactly was installed."""
    digest = hashlib.sha256()
    for path in sorted(p for p in directory.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(directory)).encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return "sha256:" + digest.hexdigest()


def tree_diff(old: Path, new: Path, label: str) -> str:
    """A unified diff of two skill folders (text files; binary ones named)."""
    names = {
        str(p.relative_to(root))
        for root in (old, new)
        if root.is_dir()
        for p in root.rglob("*")
        if p.is_file()
    }
    chunks: list[str] = []
    for name in sorted(names):
        before, after = _read_for_diff(old / name), _read_for_diff(new / name)
        if before == after:
            continue
        chunks.extend(
            difflib.unified_diff(
                before.splitlines(keepends=True),
                after.splitlines(keepends=True),
                f"a/{label}/{name}",
                f"b/{label}/{name}",
            )
        )
    return "".join(line if line.endswith("\n") else line + "\n" for line in chunks)


def _read_for_diff(path: Path) -> str:
    if not path.is_file():
        return ""
    data = path.read_bytes()
    if b"\x00" in data[:8192]:
        return (
            f"(binary file, {len(data):,} bytes, sha256 {hashlib.sha256(data).hexdigest()[:12]})\n"
        )
    return data.decode("utf-8", errors="replace")


def _copy_skill(source: Path, destination: Path) -> None:
    def ignore(directory: str, names: list[str]) -> set[str]:
        return {n for n in names if n in SKIPPED_DIRS or n.startswith(".")}

    shutil.copytree(source, destination, symlinks=True, ignore=ignore)


# ---- the installer ----------------------------------------------------------------------------


class SkillInstaller:
    """Install, update and uninstall hub skills in a library, keeping the lock file true."""

    def __init__(self, library: SkillLibrary) -> None:
        self.library = library
        self.lock_path = library.skills_dir / ".hub.json"

    # The lock: {"skills": {name: {source, kind, ref, subdir, path, commit, digest, tree, ...}}}

    def installed(self) -> dict[str, dict[str, Any]]:
        if not self.lock_path.exists():
            return {}
        try:
            data = json.loads(self.lock_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise InstallError(
                f"{self.lock_path}: unreadable ({exc}); fix or remove it to manage hub skills"
            ) from exc
        skills = data.get("skills") if isinstance(data, dict) else None
        if not isinstance(skills, dict):
            raise InstallError(f"{self.lock_path}: expected an object with a 'skills' map")
        return skills

    def _write_lock(self, change: Any) -> None:
        self.library.skills_dir.mkdir(parents=True, exist_ok=True)
        with file_lock(self.lock_path):
            skills = self.installed()
            change(skills)
            text = json.dumps({"version": 1, "skills": skills}, indent=2, sort_keys=True)
            atomic_write_text(self.lock_path, text + "\n")

    # ---- install --------------------------------------------------------------------------

    def install(
        self,
        fetched: Fetched,
        candidates: Sequence[Candidate],
        *,
        force: bool = False,
    ) -> list[InstallResult]:
        """Install the chosen candidates; raise before writing anything if one may not go in."""
        for candidate in candidates:
            self._check_installable(candidate, force)
            existing = self.library.get(candidate.name)
            if existing is not None:
                raise InstallError(
                    f"a skill named {candidate.name!r} already exists ({existing.skill_md}); "
                    f"use `skills update {candidate.name}` for a hub skill, or archive it first"
                )
        results = []
        for candidate in candidates:
            destination = self.library.skills_dir / candidate.category / candidate.name
            with self.library.locked(candidate.name):
                if destination.exists() or self.library.get(candidate.name) is not None:
                    raise InstallError(f"{destination} already exists; move it away first")
                self._place(candidate.directory, destination)
            self.library.usage.record_created(candidate.name, "hub")
            self.library.announce_external_write(candidate.name, "install", destination)
            self._record(fetched, candidate, destination)
            results.append(
                InstallResult(
                    candidate.name, destination, candidate.verdict, candidate.report.findings
                )
            )
        return results

    def _check_installable(self, candidate: Candidate, force: bool) -> None:
        if candidate.verdict == "invalid":
            raise InstallError(f"{candidate.relative}: not a valid skill: {candidate.explain()}")
        if candidate.verdict == "dangerous":
            raise InstallError(
                f"{candidate.name}: refused by the security scan: {candidate.report.summary()}"
            )
        if candidate.verdict == "caution" and not force:
            raise InstallError(
                f"{candidate.name}: the security scan found something to check: "
                f"{candidate.report.summary()}; read it, then install with --force if you trust it"
            )

    def _place(self, source: Path, destination: Path) -> None:
        """Copy into a hidden staging folder beside the destination, then rename it into place."""
        destination.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".install-", dir=destination.parent))
        try:
            _copy_skill(source, staging / "skill")
            os.replace(staging / "skill", destination)
        finally:
            shutil.rmtree(staging, ignore_errors=True)

    def _record(self, fetched: Fetched, candidate: Candidate, destination: Path) -> None:
        entry = {
            "source": str(fetched.spec),
            "kind": fetched.spec.kind,
            "ref": fetched.spec.ref,
            "subdir": fetched.spec.subdir,
            "path": candidate.relative,
            "commit": fetched.commit,
            "digest": fetched.digest,
            "tree": tree_digest(destination),
            "category": candidate.category,
            "verdict": candidate.verdict,
        }

        def change(skills: dict[str, Any]) -> None:
            previous = skills.get(candidate.name, {})
            entry["installed_at"] = previous.get("installed_at") or iso_now()
            entry["updated_at"] = iso_now()
            skills[candidate.name] = entry

        self._write_lock(change)

    # ---- update ---------------------------------------------------------------------------

    def update(
        self, names: Sequence[str] = (), *, force: bool = False, dry_run: bool = False
    ) -> list[UpdateResult]:
        lock = self.installed()
        unknown = [n for n in names if n not in lock]
        if unknown:
            raise InstallError(
                f"not installed from a source: {', '.join(unknown)} "
                f"(hub skills: {', '.join(sorted(lock)) or 'none'})"
            )
        results = []
        for name in names or sorted(lock):
            results.append(self._update_one(name, lock[name], force=force, dry_run=dry_run))
        return results

    def _update_one(
        self, name: str, entry: dict[str, Any], *, force: bool, dry_run: bool
    ) -> UpdateResult:
        skill = self.library.get(name)
        if skill is None or skill.root.kind != "home":
            return UpdateResult(name, "missing", message="not in the skills folder any more")
        spec = parse_source(entry["source"])
        with fetch(spec) as fetched:
            matches = [
                c
                for c in find_candidates(fetched.root, entry.get("category"))
                if c.name == name or c.relative == entry.get("path")
            ]
            if not matches:
                return UpdateResult(name, "missing", message=f"{spec} no longer holds {name!r}")
            with self.library.locked(name):  # no agent patch lands between diff and swap
                return self._apply_update(name, entry, skill, fetched, matches[0], force, dry_run)

    def _apply_update(
        self,
        name: str,
        entry: dict[str, Any],
        skill: Any,
        fetched: Fetched,
        candidate: Candidate,
        force: bool,
        dry_run: bool,
    ) -> UpdateResult:
        diff = tree_diff(skill.directory, candidate.directory, name)
        if not diff:
            return UpdateResult(name, "up to date")
        if candidate.verdict in ("invalid", "dangerous") or (
            candidate.verdict == "caution" and not force
        ):
            try:
                self._check_installable(candidate, force)
            except InstallError as exc:
                return UpdateResult(name, "refused", diff, str(exc), candidate.verdict)
        if tree_digest(skill.directory) != entry.get("tree") and not force:
            return UpdateResult(
                name,
                "refused",
                diff,
                "the installed copy was edited since it was installed; "
                "update with --force to replace it (the current SKILL.md is kept in history)",
                candidate.verdict,
            )
        if dry_run:
            return UpdateResult(name, "would update", diff, verdict=candidate.verdict)
        self._replace(name, skill.directory, candidate.directory)
        self._record(fetched, candidate, skill.directory)
        return UpdateResult(name, "updated", diff, verdict=candidate.verdict)

    def _replace(self, name: str, current: Path, source: Path) -> None:
        previous = (current / "SKILL.md").read_bytes()
        self.library.history.save(name, "SKILL.md", previous, action="update", origin="user")
        staging = Path(tempfile.mkdtemp(prefix=".install-", dir=current.parent))
        try:
            _copy_skill(source, staging / "new")
            os.replace(current, staging / "old")
            os.replace(staging / "new", current)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        self.library.announce_external_write(
            name, "update", current, before=previous.decode("utf-8", "replace")
        )

    # ---- uninstall ------------------------------------------------------------------------

    def uninstall(self, name: str) -> Path:
        lock = self.installed()
        if name not in lock:
            raise InstallError(
                f"{name!r} was not installed from a source; use `skills archive {name}` instead"
            )
        try:
            result = self.library.archive(name, origin="user", reason="uninstall")
        except SkillError as exc:
            raise InstallError(str(exc)) from exc
        self._write_lock(lambda skills: skills.pop(name, None))
        return result.path
