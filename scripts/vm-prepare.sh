#!/usr/bin/env bash
# Prepares the real-kernel test machine of the `cordon control` VM suite (test/vm/): Debian's
# qemu-system-x86 and busybox-static (apt-get, when missing), and a Debian kernel unpacked into
# the cache (`apt-get download` + `dpkg-deb -x`: ~25 s, where installing linux-image-amd64 would
# spend minutes in update-initramfs). The XZ-compressed vmlinuz is decompressed once into an ELF
# vmlinux, which qemu boots through its PVH entry: /init starts ~20 s earlier under TCG
# (docs/testing.md).
#
#   CORDON_VM_DIR   where the kernel goes (default: <repo>/.cache/vm, gitignored)
#
# Idempotent: a complete kernel directory (`.complete`) is reused. Prints one line saying what
# it did; when qemu cannot be installed (not root and no sudo, no apt-get) it says so and exits 0,
# and the suite skips itself with that reason.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
dir="${CORDON_VM_DIR:-$repo/.cache/vm}"
mkdir -p "$dir"

# shellcheck source=lib/machine.sh
. "$repo/scripts/lib/machine.sh"

if ! command -v qemu-system-x86_64 >/dev/null 2>&1 || [ ! -x /bin/busybox ]; then
  # apt_install prints the real reason (no apt-get, not root, apt's own error) when it fails.
  if ! apt_install vm-prepare --no-recommends qemu-system-x86 busybox-static; then
    echo "vm-prepare: the VM suite will be skipped"
    exit 0
  fi
fi

kdir="$dir/kernel"
if [ -f "$kdir/.complete" ] && [ -f "$kdir/vmlinux" ]; then
  echo "vm-prepare: kernel present ($kdir)"
  exit 0
fi
rm -rf "$kdir" && mkdir -p "$kdir"
# The versioned package linux-image-amd64 points at (e.g. linux-image-6.1.0-50-amd64).
pkg="$(apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[0-9].*\)$/\1/p' | head -1)"
if [ -z "$pkg" ]; then echo "vm-prepare: apt knows no linux-image-amd64; the VM suite will be skipped"; exit 0; fi
echo "vm-prepare: unpacking $pkg into $kdir"
# As root, apt would download as its _apt user, who cannot write here, and warn; root downloads it.
(cd "$kdir" && apt-get -o APT::Sandbox::User=root download -qq "$pkg" >/dev/null && dpkg-deb -x ./*.deb root && rm -f ./*.deb)
vmlinuz="$(ls "$kdir"/root/boot/vmlinuz-* | head -1)"
kver="${vmlinuz##*/vmlinuz-}"
# Decompress the kernel image: the payload starts at the XZ magic.
off="$(grep -abo $'\xfd7zXZ\x00' "$vmlinuz" | head -1 | cut -d: -f1)"
tail -c +"$((off + 1))" "$vmlinuz" | xz -dc >"$kdir/vmlinux" 2>/dev/null || true
[ -s "$kdir/vmlinux" ] || cp "$vmlinuz" "$kdir/vmlinux"
# Only the modules the guest loads are kept, in load order: 9p over virtio for the shares, zram for the swap case.
mkdir -p "$kdir/modules"
for m in netfs fscache 9pnet virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci 9pnet_virtio 9p zsmalloc zram; do
  f="$(find "$kdir/root/lib/modules/$kver" -name "$m.ko*" | head -1)"
  if [ -n "$f" ]; then
    case "$f" in *.xz) xz -dc "$f" >"$kdir/modules/$m.ko" ;; *) cp "$f" "$kdir/modules/$m.ko" ;; esac
    echo "$m" >>"$kdir/modules/order"
  fi
done
echo "$kver" >"$kdir/version"
rm -rf "$kdir/root"
touch "$kdir/.complete"
echo "vm-prepare: kernel $kver ready ($kdir/vmlinux)"
