#!/bin/sh
# Prints the path of Debian's chromium for the browser tests, installing the
# package first when it is missing and we run as root. Browsers are never
# downloaded through npm (they cannot be here, and Debian's is maintained).
set -eu
for candidate in "${CHROMIUM_PATH:-}" /usr/bin/chromium /usr/bin/chromium-browser; do
	if [ -n "$candidate" ] && [ -x "$candidate" ]; then
		echo "$candidate"
		exit 0
	fi
done
if [ "$(id -u)" != 0 ]; then
	echo "ensure-chromium: chromium is missing; install it with: sudo apt-get install -y chromium" >&2
	exit 1
fi
# Several test runs may start at once (parallel worktrees): one installs while
# the others wait on the lock, then find the browser there.
exec 9>/var/lock/wayfare-ensure-chromium.lock
flock 9
if [ -x /usr/bin/chromium ]; then
	echo /usr/bin/chromium
	exit 0
fi
echo "ensure-chromium: installing Debian's chromium" >&2
export DEBIAN_FRONTEND=noninteractive
# Another apt (not ours) may hold dpkg's lock: wait for it rather than fail.
apt-get -o DPkg::Lock::Timeout=600 update >&2
apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends chromium fonts-dejavu-core >&2
echo /usr/bin/chromium
