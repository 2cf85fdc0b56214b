"""Capture what `evmstate run` shows on a terminal, and write it to docs/terminal.md.

Runs the bundled project (a copy, in a temporary folder) inside tmux, reads the screen every
few hundredths of a second, and keeps a screen while compiling, one while searching, one while
shrinking and the last one. Needs tmux and evmstate installed:

    python docs/capture_terminal.py
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SESSION = "evmstate-capture"
WIDTH, HEIGHT = 120, 30
COMMAND = "evmstate run --seed 1 --max-examples 20 machines/erc20.py machines/depositer.py"


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], check=True, capture_output=True, text=True).stdout


def screen() -> str:
    lines = tmux("capture-pane", "-p", "-t", SESSION).rstrip("\n").splitlines()
    return "\n".join(line.rstrip() for line in lines).strip("\n")


def main() -> None:
    if shutil.which("tmux") is None:
        sys.exit("tmux is needed: apt-get install tmux")
    evmstate = Path(sys.executable).parent / "evmstate"
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "project"
        project.mkdir()
        for name in ("contracts", "machines"):
            shutil.copytree(REPO / name, project / name)
        shutil.copy(REPO / "evmstate.toml", project / "evmstate.toml")
        subprocess.run(["tmux", "kill-session", "-t", SESSION], capture_output=True)
        tmux(
            "new-session", "-d", "-s", SESSION, "-x", str(WIDTH), "-y", str(HEIGHT), "-c", str(project), "bash",
            "--norc", "--noprofile",
        )
        tmux("set-option", "-t", SESSION, "history-limit", "5000")
        prompt = (
            f"export PATH={shlex.quote(str(evmstate.parent))}:$PATH && cd {shlex.quote(str(project))} "
            "&& PS1='$ ' && clear"
        )
        tmux("send-keys", "-t", SESSION, prompt, "Enter")
        time.sleep(0.5)
        tmux("send-keys", "-t", SESSION, f"{COMMAND}; echo exit $?", "Enter")
        seen: dict[str, list[str]] = {}
        deadline = time.time() + 300
        while time.time() < deadline:
            text = screen()
            for phase in ("compiling", "searching", "shrinking", "removing steps"):
                if any(line.lstrip()[:1] in "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏" and phase in line for line in text.splitlines()):
                    seen.setdefault(phase, []).append(text)
            if "\nexit " in text:
                break
            time.sleep(0.03)
        # the search half way through; every other phase as far as it got
        frames = {
            phase: (shots[len(shots) // 2] if phase == "searching" else shots[-1]) for phase, shots in seen.items()
        }
        final = tmux("capture-pane", "-p", "-S", "-", "-t", SESSION)
        tmux("kill-session", "-t", SESSION)
    final = "\n".join(line.rstrip() for line in final.splitlines()).strip("\n")
    clean = lambda text: text.replace(str(project), "project")  # noqa: E731
    parts = [
        "# A run on a terminal",
        "",
        f"`{COMMAND}` in the bundled project, on a {WIDTH}x{HEIGHT} terminal, captured with tmux by",
        "`python docs/capture_terminal.py` (which writes this page). The live line is redrawn in place;",
        "these are the screens at a few moments, then the whole scrollback once the run ended.",
    ]
    titles = {
        "compiling": "While compiling",
        "searching": "While searching: examples n/N counts toward --max-examples, machine k of M",
        "shrinking": "While shrinking: the shortest failing program so far, the runs tried, and what Ctrl-C does",
        "removing steps": "The last shrinking pass: deleting steps from the program itself",
    }
    for phase, title in titles.items():
        if phase in frames:
            parts += ["", f"## {title}", "", "```text", clean(frames[phase]), "```"]
    parts += ["", "## The whole run", "", "```text", clean(final), "```", ""]
    (REPO / "docs" / "terminal.md").write_text("\n".join(parts), encoding="utf-8")
    missing = [p for p in ("searching", "shrinking") if p not in frames]
    print(
        f"wrote docs/terminal.md ({', '.join(frames)} captured{'; missing ' + ', '.join(missing) if missing else ''})"
    )


if __name__ == "__main__":
    main()
