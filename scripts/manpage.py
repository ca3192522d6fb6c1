#!/usr/bin/env python3
"""Writes arenaplan.1 (man page, roff) from the CLI's own texts: `arenaplan --help` for the
command list and `arenaplan help COMMAND` for each command's section, so the page says exactly
what --help says. Run at build time: manpage.py BUILT_CLI OUT.1
"""
import subprocess
import sys


def roff(text):
    # Backslashes are roff's escape; a line starting with . or ' would be a request.
    out = []
    for line in text.rstrip("\n").split("\n"):
        line = line.replace("\\", "\\e").replace("-", "\\-")
        if line.startswith((".", "'")):
            line = "\\&" + line
        out.append(line)
    return "\n".join(out)


def main():
    if len(sys.argv) != 3:
        print("usage: manpage.py ARENAPLAN OUT.1", file=sys.stderr)
        return 2
    cli, out = sys.argv[1], sys.argv[2]

    def run(*args):
        return subprocess.run([cli] + list(args), stdout=subprocess.PIPE, text=True, check=True).stdout

    version = run("version").split()[-1]
    overview = run("--help")
    # The overview lists the commands in groups: "TITLE:" then "  NAME  SUMMARY" lines.
    groups = []
    for line in overview.split("\n\n", 1)[1].splitlines():
        if line.endswith(":") and not line.startswith(" "):
            groups.append((line[:-1], []))
        elif groups and line.startswith("  ") and line.strip():
            name, summary = line.strip().split(None, 1)
            groups[-1][1].append((name, summary))
    commands = [c for _, cs in groups for c in cs]
    page = [
        '.TH ARENAPLAN 1 "" "arenaplan %s" "User Commands"' % version,
        ".SH NAME",
        "arenaplan \\- plan, run and explain the tensor memory of TensorFlow Lite models",
        ".SH SYNOPSIS",
        ".nf",
        roff(overview.split("\n\n")[0]),
        ".fi",
        ".SH DESCRIPTION",
        "arenaplan reads a .tflite model and says how many bytes of RAM inference needs, where",
        "every byte goes, and how that compares with what TensorFlow Lite and TensorFlow Lite",
        "Micro would ask for. Sizes are printed in bytes and in binary units; sizes given by",
        "the user accept suffixes such as 76K and 1.5M.",
        ".SH COMMANDS",
    ]
    for title, cs in groups:
        page += [".SS " + roff(title[0].upper() + title[1:])]
        for name, summary in cs:
            page += [".TP", ".B " + name, roff(summary)]
    for name, _ in commands:
        r = subprocess.run([cli, "help", name], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           text=True)
        if r.returncode != 0:  # help and version have no usage of their own
            continue
        page += [".SH \"ARENAPLAN %s\"" % name.upper(), ".nf", roff(r.stdout), ".fi"]
    page += [
        ".SH EXIT STATUS",
        "0 on success, 1 on a failed check (a budget that does not fit, outputs that differ),",
        "2 on bad usage or unreadable input.",
        ".SH SEE ALSO",
        "The README and docs/ of the source tree; pkg\\-config(1) module arenaplan.",
    ]
    with open(out, "w") as f:
        f.write("\n".join(page) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
