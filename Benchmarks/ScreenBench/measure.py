#!/usr/bin/env python3
"""One run of a full-screen program in a private tmux server, measured.

    measure.py --name NAME --socket SOCKET --marker TEXT --workdir DIR [--width W --height H --seconds S] -- COMMAND...

The program starts in a detached tmux pane (TERM=tmux-256color) that waits on a FIFO, so that the
pane's output is already being copied to a file (`tmux pipe-pane -o`) and the launch instant is known.
Prints one JSON object:
  first_frame_ms  launch (the FIFO is written) to the first capture-pane that shows TEXT, polled every 2 ms
  cpu_seconds     utime+stime of the program (all its threads) over the window, from /proc/PID/stat
  bytes           bytes written to the terminal over the window
  window_seconds  the window's measured length
The window starts 1 s after the first frame. Every wait is bounded; the tmux server is always killed.
"""
import argparse
import json
import os
import shlex
import subprocess
import sys
import time

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as file:
        fields = file.read().rsplit(")", 1)[1].split()
    # After the command name: state is field 3, utime 14, stime 15 (1-based), i.e. 11 and 12 here.
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--name", required=True)
    parser.add_argument("--width", type=int, default=200)
    parser.add_argument("--height", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--settle", type=float, default=1)
    parser.add_argument("--marker", required=True)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--socket", required=True, help="the private tmux -L socket (the caller kills it too)")
    parser.add_argument("command", nargs="+")
    args = parser.parse_args()

    work = os.path.join(args.workdir, args.name)
    os.makedirs(work, exist_ok=True)
    fifo, pid_file, output = (os.path.join(work, name) for name in ("go", "pid", "terminal-output"))
    for path in (fifo, pid_file, output):
        if os.path.exists(path):
            os.remove(path)
    os.mkfifo(fifo)
    socket = args.socket

    def tmux(*arguments, check=True):
        return subprocess.run(["tmux", "-L", socket, "-f", "/dev/null", *arguments], check=check, timeout=10,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout

    program = " ".join(shlex.quote(part) for part in args.command)
    pane = (f"read go < {shlex.quote(fifo)}; echo $$ > {shlex.quote(pid_file)}; "
            f"exec env TERM=tmux-256color {program}")
    try:
        tmux("new-session", "-d", "-s", "bench", "-x", str(args.width), "-y", str(args.height), "sh -c " + shlex.quote(pane))
        tmux("set-option", "-t", "bench", "remain-on-exit", "on", check=False)
        tmux("pipe-pane", "-o", "-t", "bench", "cat >> " + shlex.quote(output))
        deadline = time.monotonic() + 5
        while not os.path.exists(output) and time.monotonic() < deadline:
            time.sleep(0.005)

        # Opening a FIFO for writing blocks until a reader opens it; retry a non-blocking open instead, bounded.
        deadline = time.monotonic() + 10
        while True:
            try:
                descriptor = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
                break
            except OSError:
                if time.monotonic() > deadline:
                    sys.exit(f"measure: {args.name}: the pane never opened its FIFO")
                time.sleep(0.001)
        launched = time.monotonic()
        os.write(descriptor, b"go\n")
        os.close(descriptor)

        first_frame = None
        deadline = launched + 10
        while time.monotonic() < deadline:
            screen = tmux("capture-pane", "-p", "-t", "bench", check=False)
            if args.marker in screen:
                first_frame = time.monotonic()
                break
            time.sleep(0.002)
        if first_frame is None:
            sys.exit(f"measure: {args.name}: the screen never showed {args.marker!r} within 10 s; last screen:\n{screen}")

        deadline = time.monotonic() + 5
        pid = None
        while pid is None and time.monotonic() < deadline:
            try:
                with open(pid_file) as file:
                    pid = int(file.read().strip())
            except (OSError, ValueError):
                time.sleep(0.005)
        if pid is None:
            sys.exit(f"measure: {args.name}: no pid")

        time.sleep(args.settle)
        start_cpu, start_bytes, start = cpu_seconds(pid), os.path.getsize(output), time.monotonic()
        time.sleep(args.seconds)
        end_cpu, end_bytes, end = cpu_seconds(pid), os.path.getsize(output), time.monotonic()
        alive = tmux("display-message", "-p", "-t", "bench", "#{pane_dead}", check=False).strip() == "0"
        if not alive:
            sys.exit(f"measure: {args.name}: the program exited during the window")
        print(json.dumps({
            "name": args.name,
            "first_frame_ms": round((first_frame - launched) * 1000, 1),
            "cpu_seconds": round(end_cpu - start_cpu, 3),
            "bytes": end_bytes - start_bytes,
            "window_seconds": round(end - start, 3),
        }))
    finally:
        subprocess.run(["tmux", "-L", socket, "kill-server"], timeout=10, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


if __name__ == "__main__":
    main()
