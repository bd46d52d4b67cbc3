"""Stand-ins for the official Debian base images: a minbase debootstrap with the files
debuerreotype adds, and its slim variant; cached as tarballs between runs."""

import fnmatch
import glob
import os
import subprocess

from common import log, remove_tree, unmount_all

# Image references the rehearsal can stand in for: (suite, variant).
BASE_IMAGES = {
    "debian:12": ("bookworm", "full"),
    "debian:bookworm": ("bookworm", "full"),
    "debian:12-slim": ("bookworm", "slim"),
    "debian:bookworm-slim": ("bookworm", "slim"),
}

# What debuerreotype (the builder of the official Debian images) adds to a minbase debootstrap
# (debuerreotype-minimizing-config), approximately: files of the image, path -> content.
OFFICIAL_IMAGE_FILES = {
    "usr/sbin/policy-rc.d": "#!/bin/sh\n# No services start inside an image build.\nexit 101\n",
    "etc/dpkg/dpkg.cfg.d/docker-apt-speedup": "force-unsafe-io\n",
    "etc/apt/apt.conf.d/docker-autoremove-suggests":
        'Apt::AutoRemove::SuggestsImportant "false";\n',
    "etc/apt/apt.conf.d/docker-clean": (
        'DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb '
        '/var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };\n'
        'APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb '
        '/var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };\n'
        'Dir::Cache::pkgcache "";\nDir::Cache::srcpkgcache "";\n'),
    "etc/apt/apt.conf.d/docker-gzip-indexes": 'Acquire::GzipIndexes "true";\n',
    "etc/apt/apt.conf.d/docker-no-languages": 'Acquire::Languages "none";\n',
}

# The slim variant: the same packages with these paths removed and kept out of later installs
# (debuerreotype-slimify's .slimify-excludes / .slimify-includes, approximately).
SLIM_EXCLUDES = ["/usr/share/doc/*", "/usr/share/groff/*", "/usr/share/info/*",
                 "/usr/share/linda/*", "/usr/share/lintian/overrides/*", "/usr/share/locale/*",
                 "/usr/share/man/*"]
SLIM_INCLUDES = ["/usr/share/doc/*/copyright"]


def debootstrap_bases(suite, work, cache, mirror):
    """Debootstraps suite once (minbase) and caches the full and slim base tarballs."""
    target = os.path.join(work, f"debootstrap-{suite}")
    remove_tree(target)
    log(f"debootstrap --variant=minbase {suite} from {mirror} (cached afterwards in {cache})")
    try:
        subprocess.run(["debootstrap", "--variant=minbase", suite, target, mirror], check=True)
    finally:
        if os.path.isdir(target):
            unmount_all(target)  # what a failed debootstrap left mounted
    for rel, content in OFFICIAL_IMAGE_FILES.items():
        path = os.path.join(target, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(content)
        os.chmod(path, 0o755 if rel.endswith("policy-rc.d") else 0o644)
    with open(os.path.join(target, "etc/apt/sources.list.d/debian.sources"), "w") as f:
        f.write(f"Types: deb\nURIs: {mirror}\nSuites: {suite} {suite}-updates\n"
                "Components: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n\n"
                f"Types: deb\nURIs: {mirror}-security\nSuites: {suite}-security\n"
                "Components: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n")
    for pattern in ("etc/apt/sources.list", "etc/resolv.conf", "var/lib/apt/lists/*",
                    "var/cache/apt/*.bin", "var/cache/apt/archives/*.deb", "var/log/*.log",
                    "var/log/apt/*", "var/cache/ldconfig/aux-cache", "etc/hostname"):
        for path in glob.glob(os.path.join(target, pattern)):
            if os.path.isfile(path) or os.path.islink(path):
                os.unlink(path)
    os.makedirs(cache, exist_ok=True)
    save_base(target, os.path.join(cache, f"{suite}-full.tar"))
    slimify(target)
    save_base(target, os.path.join(cache, f"{suite}-slim.tar"))
    remove_tree(target)


def save_base(root, tarball):
    subprocess.run(["tar", "--numeric-owner", "--xattrs", "-C", root, "-cpf", tarball + ".part",
                    "."], check=True)
    os.replace(tarball + ".part", tarball)


def slimify(root):
    with open(os.path.join(root, "etc/dpkg/dpkg.cfg.d/docker"), "w") as f:
        f.write("# The slim variant: files normally unneeded in containers stay out.\n")
        f.writelines(f"path-exclude {p}\n" for p in SLIM_EXCLUDES)
        f.writelines(f"path-include {p}\n" for p in SLIM_INCLUDES)
    for pattern in SLIM_EXCLUDES:
        top = os.path.join(root, os.path.dirname(pattern).lstrip("/"))
        for dirpath, dirnames, filenames in os.walk(top, topdown=False):
            for name in filenames + [d for d in dirnames
                                     if os.path.islink(os.path.join(dirpath, d))]:
                path = os.path.join(dirpath, name)
                inside = "/" + os.path.relpath(path, root)
                if fnmatch.fnmatchcase(inside, pattern) and not any(
                        fnmatch.fnmatchcase(inside, inc) for inc in SLIM_INCLUDES):
                    os.unlink(path)
            if dirpath != top and not os.listdir(dirpath):
                os.rmdir(dirpath)
