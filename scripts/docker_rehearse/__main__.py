"""Rehearses `docker build` and `docker run` of a Dockerfile without a Docker engine.

Run by scripts/docker-rehearse.sh (root) as `python3 scripts/docker_rehearse`. Every
instruction of the Dockerfile is carried out for real: each FROM starts from a debootstrapped
Debian root file system (base.py), RUN runs in a chroot of it, COPY copies from the build
context (.dockerignore applied) or an earlier stage (build.py). The last stage is then started
the way `docker run IMAGE ARGS...` would start it (ENTRYPOINT + ARGS, in WORKDIR, as USER) and
checked from the host with a RESP client (run.py).

What differs from a real engine: no namespaces, cgroups or seccomp (a chroot sharing the host's
network, PIDs and the host's /proc, /dev and /sys); no layers or build cache; the base images
are approximations of the official debian:12 and debian:12-slim (same package set: minbase);
no ARG, ADD, LABEL, HEALTHCHECK, SHELL, ONBUILD or heredocs. Only the Python standard library.
"""

import argparse
import os
import signal
import sys
import time

from build import Build
from common import RehearsalError
from dockerfile import parse_dockerfile, split_stages
from run import run_image, summary


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dockerfile", default="Dockerfile")
    parser.add_argument("--context", default=".")
    parser.add_argument("--work", required=True)
    parser.add_argument("--cache", required=True)
    parser.add_argument("--mirror", default="http://deb.debian.org/debian")
    parser.add_argument("--parse-only", action="store_true",
                        help="parse the Dockerfile and print its stages")
    parser.add_argument("--build-only", action="store_true", help="build, do not run the image")
    args = parser.parse_args()
    args.context = os.path.realpath(args.context)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    started = time.monotonic()
    try:
        if args.parse_only:
            for stage in split_stages(parse_dockerfile(args.dockerfile)):
                print(f"FROM {stage['base']}" + (f" AS {stage['name']}" if stage["name"] else ""))
                for instr in stage["steps"]:
                    print(f"  {instr}")
            return 0
        build = Build(args)
        image = build.run(args.dockerfile)
        if not args.build_only:
            run_started = time.monotonic()
            run_image(image, args, build.work)
            build.times.append(("docker run + checks", time.monotonic() - run_started))
        summary(build, image, time.monotonic() - started)
        return 0
    except RehearsalError as e:
        print(f"\n==== docker rehearsal FAILED: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
