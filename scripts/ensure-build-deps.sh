#!/bin/sh
# The C libraries the Rust build links: OpenSSL (the simulator's Socket.IO
# client, rust_socketio, brings native-tls). Installs Debian's libssl-dev and
# pkg-config when they are missing and we run as root; otherwise says how.
set -eu
if command -v pkg-config >/dev/null 2>&1 && pkg-config --exists openssl; then
	exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
	echo "ensure-build-deps: OpenSSL's headers are missing; install them with: sudo apt-get install -y libssl-dev pkg-config" >&2
	exit 1
fi
exec 9>/var/lock/wayfare-ensure-build-deps.lock
flock 9
if command -v pkg-config >/dev/null 2>&1 && pkg-config --exists openssl; then
	exit 0
fi
echo "ensure-build-deps: installing Debian's libssl-dev and pkg-config" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends libssl-dev pkg-config >&2 ||
	{ apt-get -o DPkg::Lock::Timeout=600 update >&2 && apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends libssl-dev pkg-config >&2; }
