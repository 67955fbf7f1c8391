#!/usr/bin/env bash
# Boot the VM that build.sh made: 4 GiB, 2 vCPUs, cgroup v2 only, no network at all
# (-nic none), $VERIFY_VM_DIR/share mounted at /share over 9p; its console on stdout.
#
#   bash ci/platforms/vm/boot.sh             # ACCEL=kvm to try hardware virtualisation
#
# The default is software emulation (TCG): where /dev/kvm is PVM (kvm_pvm), Debian's
# kernel hangs right after "Probing EDD" under -enable-kvm; TCG boots in about 30 s and
# runs 5-20x slower.
set -euo pipefail
VM=${VERIFY_VM_DIR:-/tmp/verify-vm}
ACCEL=${ACCEL:-tcg}
if [ "$ACCEL" = kvm ]; then accel=(-enable-kvm -cpu host); else accel=(-accel tcg,thread=multi -cpu max); fi
mkdir -p "$VM/share"
exec qemu-system-x86_64 "${accel[@]}" -m 4G -smp 2 -nographic -no-reboot \
  -kernel "$VM/vmlinuz" -initrd "$VM/initrd.img" \
  -append 'console=ttyS0 root=/dev/vda rw systemd.unified_cgroup_hierarchy=1' \
  -drive "file=$VM/disk.img,format=raw,if=virtio" \
  -virtfs "local,path=$VM/share,mount_tag=share,security_model=none,id=share" \
  -nic none
