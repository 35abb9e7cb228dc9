#!/usr/bin/env bash
# Runs programs on an emulated AVX-512 CPU, for machines without one: a minimal Linux guest
# (Debian's cloud kernel, a busybox initramfs holding the programs and every library ldd
# names) booted from an isolinux CD in Bochs 2.7, whose `tigerlake` model has AVX512 F, BW,
# DQ, VL, VNNI and VBMI (no BF16, FP16 or AMX). It checks results, not speed: the guest runs
# 50-100 times slower than this CPU, and the boot takes about a minute.
#
#   tests/avx512_in_bochs.sh FILE... -- 'COMMAND LINE'
#
# FILE...: host files put in the guest at the same absolute paths, with their libraries.
# COMMAND LINE: run by busybox sh in the guest, in this directory; its output is printed and
# its exit status is this script's (124: the host timeout passed; 125: the guest never
# finished). Example, the avx512 levels of one test binary (the ISA helpers of tests/api run
# every level the CPU has):
#   tests/avx512_in_bochs.sh build/tests/jit/test_jit_half_to_float8 -- \
#       'build/tests/jit/test_jit_half_to_float8'
# Settings: BOCHS_CPU (tigerlake; corei7_icelake_u; corei7_skylake_x has no VNNI / VBMI),
# BOCHS_MEM (MB, 2048), BOCHS_TIMEOUT (host seconds, 3600), BOCHS_CACHE (where the kernel,
# busybox and isolinux are unpacked: ~/.cache/qgraph-bochs), BOCHS_KEEP=1 (keep the work
# folder), QTEST_GUARD_SLACK (64: the guest's test buffers keep that many bytes before their
# end guard, as Bochs faults on masked-off lanes; 0 puts them flush against it).
set -euo pipefail

CACHE=${BOCHS_CACHE:-${HOME:-/root}/.cache/qgraph-bochs}
CPU=${BOCHS_CPU:-tigerlake}
MEM=${BOCHS_MEM:-2048}
TIMEOUT=${BOCHS_TIMEOUT:-3600}
GUARD_SLACK=${QTEST_GUARD_SLACK:-64}

files=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do files+=("$1"); shift; done
if [ $# -lt 2 ]; then
    sed -n '2,21p' "$0" >&2
    exit 2
fi
shift
CMD="$*"

# Bochs and the ISO tools from Debian; the kernel, busybox and isolinux only unpacked.
set_up() {
    local need=()
    for p in bochs bochsbios vgabios xorriso cpio; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
            || need+=("$p")
    done
    if [ ${#need[@]} -gt 0 ]; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
            "${need[@]}" >/dev/null
    fi
    [ -f "$CACHE/ready" ] && return
    mkdir -p "$CACHE/debs" "$CACHE/x"
    local kernel
    kernel=$(apt-cache depends linux-image-cloud-amd64 \
        | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
    # (As root, apt's _apt user cannot write the cache: download as root, without the warning.)
    (cd "$CACHE/debs" && apt-get download -qq -o APT::Sandbox::User=root \
        "$kernel" busybox-static isolinux syslinux-common)
    for d in "$CACHE"/debs/*.deb; do dpkg-deb -x "$d" "$CACHE/x"; done
    touch "$CACHE/ready"
}
set_up
KERNEL=$(ls "$CACHE"/x/boot/vmlinuz-* | head -n 1)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/qgraph-bochs.XXXXXX")
ROOT=$WORK/root
mkdir -p "$ROOT"
cleanup() { [ "${BOCHS_KEEP:-0}" = 1 ] || rm -rf "$WORK"; }
trap cleanup EXIT

# The guest's tree mirrors the host's paths: every folder on the way (symbolic links, such
# as /lib -> usr/lib, kept as links), then the file or link itself.
# link_in_root LINK: the same link under $ROOT (relative), its target's path printed.
link_in_root() {
    local t
    t=$(readlink "$1")
    [[ $t = /* ]] || t=$(dirname "$1")/$t
    t=$(realpath -m -s "$t")
    ln -s "$(realpath -m -s --relative-to="$(dirname "$1")" "$t")" "$ROOT$1"
    echo "$t"
}
ensure_dir() {
    local d=$1
    [ "$d" = / ] && return 0
    if [ -e "$ROOT$d" ] || [ -L "$ROOT$d" ]; then return 0; fi
    ensure_dir "$(dirname "$d")"
    if [ -L "$d" ]; then
        ensure_dir "$(link_in_root "$d")"
    else
        mkdir "$ROOT$d"
    fi
}
add_path() {
    local p
    p=$(realpath -m -s "$1")
    if [ -e "$ROOT$p" ] || [ -L "$ROOT$p" ]; then return 0; fi
    ensure_dir "$(dirname "$p")"
    if [ -L "$p" ]; then
        add_path "$(link_in_root "$p")"
    elif [ -d "$p" ]; then
        cp -a "$p" "$ROOT$p"
    else
        cp -p "$p" "$ROOT$p"
    fi
}
for f in "${files[@]}"; do
    a=$(realpath -s "$f")
    [ -e "$a" ] || { echo "avx512_in_bochs.sh: no such file: $f" >&2; exit 2; }
    add_path "$a"
    [ -f "$a" ] && [ "$(head -c 4 "$a" | od -An -c | tr -d ' ')" = '177ELF' ] || continue
    ldd "$a" > "$WORK/ldd.txt" 2>&1 || continue
    if grep -q 'not found' "$WORK/ldd.txt"; then
        echo "avx512_in_bochs.sh: unresolved libraries for $f:" >&2
        grep 'not found' "$WORK/ldd.txt" >&2
        exit 2
    fi
    for lib in $(awk '{for (i = 1; i <= NF; i++) if ($i ~ /^\//) print $i}' "$WORK/ldd.txt"); do
        add_path "$lib"
    done
done

mkdir -p "$ROOT/bbin" "$ROOT/proc" "$ROOT/sys" "$ROOT/dev" "$ROOT/tmp"
cp "$CACHE/x/bin/busybox" "$ROOT/bbin/busybox"
ensure_dir "$PWD"
printf '%s\n' "$CMD" > "$ROOT/cmd.sh"
cat > "$ROOT/init" << EOF
#!/bbin/busybox sh
/bbin/busybox --install -s /bbin
export PATH=/usr/bin:/bin:/usr/sbin:/sbin:/bbin HOME=/tmp TMPDIR=/tmp
# Bochs faults on the masked-off lanes of a masked load or store: the test buffers leave a
# vector's bytes before their end guard (tests/common/guarded_buffer.hpp).
export QTEST_GUARD_SLACK=$GUARD_SLACK
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2> /dev/null
cd '$PWD'
echo "@@BEGIN@@"
sh /cmd.sh
echo "@@END@@ rc=\$?"
sync
stty -F /dev/ttyS0 115200 2> /dev/null # drains the UART before the power goes
poweroff -f
EOF
chmod +x "$ROOT/init"

ISO=$WORK/iso
mkdir -p "$ISO/isolinux"
(cd "$ROOT" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 > "$ISO/initrd.img"
cp "$CACHE/x/usr/lib/ISOLINUX/isolinux.bin" "$CACHE/x/usr/lib/syslinux/modules/bios/ldlinux.c32" \
    "$ISO/isolinux/"
cp "$KERNEL" "$ISO/vmlinuz"
# clearcpuid works around Bochs 2.7's models: their CPUID leaf 0xD gives PKRU no size and
# XSAVES the standard size (the kernel then turns XSAVE, so AVX, off), and they report FSRM
# with fast strings off (the kernel's memmove then never ends a short copy).
cat > "$ISO/isolinux/isolinux.cfg" << EOF
DEFAULT linux
PROMPT 0
TIMEOUT 0
LABEL linux
  KERNEL /vmlinuz
  APPEND initrd=/initrd.img console=ttyS0,115200 rdinit=/init quiet loglevel=3 nokaslr mitigations=off clearcpuid=pku,xsaves,xsavec,fsrm tsc=reliable no_timer_check lpj=1000000
EOF
xorriso -as mkisofs -quiet -o "$WORK/boot.iso" -b isolinux/isolinux.bin -c isolinux/boot.cat \
    -no-emul-boot -boot-load-size 4 -boot-info-table "$ISO" 2> /dev/null
rm -rf "$ISO" "$ROOT"

# Debian's Bochs has no headless display but rfb, which here waits for no client; its
# debugger is built in and stops at a prompt, which `continue` leaves. The dummy sound driver:
# on a machine without a sound card Bochs' mixer thread otherwise aborts at start ("buffer
# overflow detected", after ALSA finds no card).
cat > "$WORK/bochsrc" << EOF
memory: guest=$MEM, host=$((MEM > 2048 ? 2048 : MEM))
romimage: file=/usr/share/bochs/BIOS-bochs-latest
vgaromimage: file=/usr/share/vgabios/vgabios.bin
cpu: model=$CPU, count=1, ips=100000000, reset_on_triple_fault=0
ata0-master: type=cdrom, path=$WORK/boot.iso, status=inserted
boot: cdrom
com1: enabled=1, mode=file, dev=$WORK/serial.out
display_library: rfb, options="timeout=0"
clock: sync=none, time0=local
mouse: enabled=0
sound: driver=dummy
log: $WORK/bochs.log
panic: action=fatal
info: action=ignore
debug: action=ignore
EOF
printf 'continue\nquit\n' > "$WORK/dbgrc"
: > "$WORK/serial.out"
set +e
timeout "$TIMEOUT" bochs -q -f "$WORK/bochsrc" -rc "$WORK/dbgrc" < /dev/null \
    > "$WORK/bochs.out" 2>&1
brc=$?
set -e
# (The guest's ACPI power-off is a Bochs "panic": Bochs exits 1 then.)
sed -n '/@@BEGIN@@/,/@@END@@/p' "$WORK/serial.out" | sed '1d;$d' | tr -d '\r'
end=$(grep -a -o '@@END@@ rc=[0-9]*' "$WORK/serial.out" || true)
if [ -z "$end" ]; then
    echo "avx512_in_bochs.sh: the guest did not finish (bochs exit $brc); its console's end:" >&2
    tail -n 20 "$WORK/serial.out" >&2
    [ "$brc" = 124 ] && exit 124
    exit 125
fi
exit "${end##*rc=}"
