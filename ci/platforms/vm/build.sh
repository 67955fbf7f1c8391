#!/usr/bin/env bash
# Build a Debian bookworm VM image with systemd and cgroup v2 to try verify in, with no
# network inside: every package comes from Debian's archive through this machine's apt
# (debootstrap, apt-get download); Python wheels are prepared on this machine by run.sh.
#
#   sudo bash ci/platforms/vm/build.sh       # needs debootstrap and e2fsprogs (mkfs.ext4 -d)
#
# Result in $VERIFY_VM_DIR (default /tmp/verify-vm): rootfs/, disk.img, vmlinuz, initrd.img.
# The image has a user bob (uid 1000, lingering, so he has a systemd user manager), the
# user bus (dbus-user-session), and a unit verify-vm-run.service that runs
# /share/inside.sh as root at boot, writes /share/inside.log and powers off (run.sh
# writes inside.sh). An existing rootfs/ (with .done) is reused: only the configuration
# and the image are redone; SEED_ROOTFS=DIR copies a debootstrapped rootfs instead of
# making one.
set -euo pipefail
VM=${VERIFY_VM_DIR:-/tmp/verify-vm}
R=$VM/rootfs
PACKAGES=systemd,systemd-sysv,dbus,dbus-user-session,libpam-systemd,udev,kmod,linux-image-amd64,initramfs-tools,bubblewrap,libseccomp2,python3,python3-venv,gcc,libc6-dev,perl,nodejs,ruby,lua5.4,php-cli,golang-go,openjdk-17-jdk-headless,tcl8.6,gawk,sudo,procps,psmisc,iproute2,ca-certificates
mkdir -p "$VM/debcache"        # (debootstrap wants its --cache-dir made)
if [ ! -f "$R/.done" ]; then
  rm -rf "$R"
  if [ -n "${SEED_ROOTFS:-}" ]; then
    cp -a "$SEED_ROOTFS" "$R"
  else
    debootstrap --cache-dir="$VM/debcache" --variant=minbase --include="$PACKAGES" bookworm "$R"
  fi
  touch "$R/.done"
fi
# packages missing from a seeded or older rootfs, from this machine's apt (same release)
missing=()
for package in ${PACKAGES//,/ }; do
  chroot "$R" dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing into the rootfs: ${missing[*]}"
  mkdir -p "$R/tmp/debs" && (cd "$R/tmp/debs" && apt-get download "${missing[@]}")
  chroot "$R" sh -c 'dpkg -i /tmp/debs/*.deb' && rm -rf "$R/tmp/debs"
fi
echo verifyvm > "$R/etc/hostname"
echo 'root:root' | chroot "$R" chpasswd
chroot "$R" id bob >/dev/null 2>&1 || chroot "$R" useradd -m -u 1000 -s /bin/bash bob
mkdir -p "$R/var/lib/systemd/linger" && touch "$R/var/lib/systemd/linger/bob"   # loginctl enable-linger bob
printf '/dev/vda / ext4 rw,relatime 0 1\nshare /share 9p trans=virtio,version=9p2000.L,msize=262144,nofail 0 0\n' \
  > "$R/etc/fstab"
mkdir -p "$R/share"
rm -f "$R/etc/systemd/system/multi-user.target.wants/plat-test.service" "$R/etc/systemd/system/plat-test.service"
cat > "$R/etc/systemd/system/verify-vm-run.service" <<'EOT'
[Unit]
Description=run /share/inside.sh, then power off
After=multi-user.target systemd-logind.service user@1000.service
Requires=share.mount
[Service]
Type=oneshot
ExecStart=/bin/bash -c '/bin/bash /share/inside.sh > /share/inside.log 2>&1; echo "vm rc=$?" >> /share/inside.log; sync; systemctl poweroff'
StandardOutput=journal+console
TimeoutStartSec=3000
[Install]
WantedBy=multi-user.target
EOT
ln -sf /etc/systemd/system/verify-vm-run.service "$R/etc/systemd/system/multi-user.target.wants/verify-vm-run.service"
# root is on virtio-blk: its modules must be in the initramfs
if ! grep -q '^virtio_blk$' "$R/etc/initramfs-tools/modules"; then
  printf 'virtio_blk\nvirtio_pci\n9p\n9pnet_virtio\next4\n' >> "$R/etc/initramfs-tools/modules"
  chroot "$R" update-initramfs -u -k all
fi
rm -f "$VM/disk.img"
truncate -s 8G "$VM/disk.img"
mkfs.ext4 -q -F -d "$R" "$VM/disk.img"
cp "$(ls "$R"/boot/vmlinuz-* | tail -1)" "$VM/vmlinuz"
cp "$(ls "$R"/boot/initrd.img-* | tail -1)" "$VM/initrd.img"
echo "built $VM/disk.img"
