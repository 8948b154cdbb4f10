import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../support/cli.js';

// A real cgroup v2 kernel under qemu (TCG) for the `cordon control` suite, as
// docs/testing.md describes it: Debian's kernel booted decompressed (PVH
// entry), a busybox initramfs, the host's `/` exported read-only over 9p (the guest runs the
// host's node and the built project from there) and a writable 9p share for the results.

/** Where scripts/vm-prepare.sh leaves the kernel. */
export const VM_DIR = process.env.CORDON_VM_DIR ?? join(REPO_ROOT, '.cache/vm');
const KERNEL_DIR = join(VM_DIR, 'kernel');
const BUSYBOX = '/bin/busybox';

/** Why the VM cannot run here, or `undefined` when it can. */
export function vmUnavailable(): string | undefined {
  if (process.platform !== 'linux' || process.arch !== 'x64') return `the VM suite needs an x86-64 Linux host (this is ${process.platform}/${process.arch})`;
  if (spawnSync('qemu-system-x86_64', ['--version']).status !== 0) return 'qemu-system-x86_64 is not installed (scripts/vm-prepare.sh installs it with apt-get as root)';
  if (!existsSync(BUSYBOX)) return `${BUSYBOX} is missing (Debian's busybox-static; scripts/vm-prepare.sh installs it)`;
  if (!existsSync(join(KERNEL_DIR, '.complete'))) return `no kernel in ${KERNEL_DIR} (run scripts/vm-prepare.sh)`;
  return undefined;
}

/** What one boot produced. */
export interface BootResult {
  /** The console, `\r` removed. */
  readonly console: string;
  /** The writable share (the guest writes its results there). */
  readonly share: string;
  readonly exitCode: number | null;
  /** Wall time of the whole boot, ms. */
  readonly wallMs: number;
}

/**
 * Builds an initramfs whose /init mounts proc, sys, devtmpfs, the two 9p shares and cgroup2
 * (`+memory +cpu` enabled at the root), then runs `guestScript` (a path on the host, reached
 * through /hostroot) with the host's node as `node guestScript <repo> /mnt`, and powers off.
 * Boots it once with 1 GiB and 2 vCPUs and waits at most `timeoutMs`.
 */
export async function bootOnce(guestScript: string, timeoutMs: number, onLine?: (line: string) => void): Promise<BootResult> {
  const work = mkdtempSync(join(tmpdir(), 'cordon-vm-'));
  const root = join(work, 'root');
  const share = join(work, 'share');
  mkdirSync(share);
  for (const d of ['bin', 'sbin', 'proc', 'sys', 'dev', 'tmp', 'mnt', 'hostroot', 'lib64', 'lib', 'usr/bin', 'usr/lib', 'modules', 'etc']) mkdirSync(join(root, d), { recursive: true });
  copyFileSync(BUSYBOX, join(root, 'bin/busybox'));
  chmodSync(join(root, 'bin/busybox'), 0o755);
  const applets = spawnSync(BUSYBOX, ['--list'], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
  for (const a of applets) if (a !== 'busybox') symlinkSync('busybox', join(root, 'bin', a));
  // The host's node runs natively: its loader and libraries resolve into the read-only host root.
  const libDir = '/hostroot/usr/lib/x86_64-linux-gnu';
  symlinkSync(`${libDir}/ld-linux-x86-64.so.2`, join(root, 'lib64/ld-linux-x86-64.so.2'));
  symlinkSync(libDir, join(root, 'lib/x86_64-linux-gnu'));
  symlinkSync(libDir, join(root, 'usr/lib/x86_64-linux-gnu'));
  symlinkSync(`/hostroot${realpathSync(process.execPath)}`, join(root, 'usr/bin/node'));
  writeFileSync(join(root, 'etc/passwd'), 'root:x:0:0:root:/tmp/home:/bin/sh\n');
  const order = readFileSync(join(KERNEL_DIR, 'modules/order'), 'utf8').split('\n').filter(Boolean);
  for (const m of readdirSync(join(KERNEL_DIR, 'modules'))) copyFileSync(join(KERNEL_DIR, 'modules', m), join(root, 'modules', m));
  const init = [
    '#!/bin/sh',
    'export PATH=/bin:/usr/bin HOME=/tmp/home',
    'mount -t proc proc /proc; mount -t sysfs sysfs /sys; mount -t devtmpfs devtmpfs /dev; mount -t tmpfs tmpfs /tmp; mkdir -p /tmp/home',
    `for m in ${order.join(' ')}; do insmod /modules/$m.ko 2>/dev/null || echo "[init] insmod $m failed"; done`,
    'mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 share /mnt || echo "[init] share mount failed"',
    'mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,ro,cache=loose hostroot /hostroot || echo "[init] hostroot mount failed"',
    'mount -t cgroup2 cgroup2 /sys/fs/cgroup && echo "+memory +cpu" > /sys/fs/cgroup/cgroup.subtree_control',
    'echo "[init] up at $(cut -d" " -f1 /proc/uptime) s, kernel $(uname -r), controllers: $(cat /sys/fs/cgroup/cgroup.subtree_control)"',
    `node /hostroot${guestScript} /hostroot${REPO_ROOT} /mnt; echo "[init] guest script exit $?"`,
    'echo "[init] done at $(cut -d" " -f1 /proc/uptime) s"',
    'poweroff -f',
  ].join('\n');
  writeFileSync(join(root, 'init'), `${init}\n`, { mode: 0o755 });
  const cpio = spawnSync('sh', ['-c', `cd ${JSON.stringify(root)} && find . | ${BUSYBOX} cpio -o -H newc 2>/dev/null | gzip -1 > ../initrd.gz`]);
  if (cpio.status !== 0) throw new Error(`initramfs: ${cpio.stderr}`);

  const started = performance.now();
  const args = [
    '-m', '1024', '-smp', '2', '-nographic', '-no-reboot',
    '-kernel', join(KERNEL_DIR, 'vmlinux'), '-initrd', join(work, 'initrd.gz'),
    '-append', 'console=ttyS0 quiet psi=1 panic=-1',
    '-virtfs', `local,path=${share},mount_tag=share,security_model=none,id=share`,
    '-virtfs', 'local,path=/,mount_tag=hostroot,security_model=none,readonly=on,id=hostroot',
  ];
  const qemu = spawn('qemu-system-x86_64', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  let pending = '';
  const take = (b: Buffer): void => {
    pending += b.toString('utf8').replace(/\r/g, '');
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const l of lines) {
      text += `${l}\n`;
      onLine?.(l);
    }
  };
  qemu.stdout.on('data', take);
  qemu.stderr.on('data', take);
  const timer = setTimeout(() => qemu.kill('SIGKILL'), timeoutMs);
  const exitCode = await new Promise<number | null>((resolve) => qemu.on('close', resolve));
  clearTimeout(timer);
  return { console: text + pending, share, exitCode, wallMs: performance.now() - started };
}
