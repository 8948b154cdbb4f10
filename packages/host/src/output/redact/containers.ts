// Programs whose subcommand runs a command inside something else: `docker exec CONTAINER cmd`,
// `docker run IMAGE cmd`, `podman exec`/`run`, `docker compose exec`/`run`, `kubectl exec POD -- cmd`;
// each with the options that take a value, so the command is found past them and its operands.
import { afterOptions, longValue, skipOptions, takesNext, type OptionValue } from './option-words.js';
import type { Word } from './types.js';

/**
 * docker's global options that take the next word as their value, which may come before its
 * subcommand (`docker --config DIR login`, `docker -H HOST exec`):
 * https://docs.docker.com/reference/cli/docker/ ("Options").
 */
export const DOCKER_GLOBALS = ['--config', '-c', '--context', '-H', '--host', '-l', '--log-level', '--tlscacert', '--tlscert', '--tlskey'];

/**
 * podman's global options that take a value, https://docs.podman.io/en/latest/markdown/podman.1.html
 * ("GLOBAL OPTIONS").
 */
export const PODMAN_GLOBALS = ['--cdi-spec-dir', '--cgroup-manager', '--config', '--conmon', '-c', '--connection', '--events-backend', '--hooks-dir', '--identity', '--imagestore', '--log-level', '--module', '--network-cmd-path', '--network-config-dir', '--out', '--root', '--runroot', '--runtime', '--runtime-flag', '--ssh', '--storage-driver', '--storage-opt', '--tmpdir', '--url', '--volumepath'];

/**
 * docker run's options that take a value, https://docs.docker.com/reference/cli/docker/container/run/
 * ("Options"; the others, `-d`, `-i`, `-t`, `-P`, `--rm`, `--init`, `--privileged`, `--read-only`
 * …, are flags): an option missing here would have its value read as the image, and the image
 * as the command.
 */
const DOCKER_RUN = ['--add-host', '--annotation', '-a', '--attach', '--blkio-weight', '--blkio-weight-device', '--cap-add', '--cap-drop', '--cgroup-parent', '--cgroupns', '--cidfile', '--cpu-count', '--cpu-percent', '--cpu-period', '--cpu-quota', '--cpu-rt-period', '--cpu-rt-runtime', '-c', '--cpu-shares', '--cpus', '--cpuset-cpus', '--cpuset-mems', '--detach-keys', '--device', '--device-cgroup-rule', '--device-read-bps', '--device-read-iops', '--device-write-bps', '--device-write-iops', '--dns', '--dns-option', '--dns-search', '--domainname', '--entrypoint', '-e', '--env', '--env-file', '--expose', '--gpus', '--group-add', '--health-cmd', '--health-interval', '--health-retries', '--health-start-interval', '--health-start-period', '--health-timeout', '-h', '--hostname', '--io-maxbandwidth', '--io-maxiops', '--ip', '--ip6', '--ipc', '--isolation', '--kernel-memory', '-l', '--label', '--label-file', '--link', '--link-local-ip', '--log-driver', '--log-opt', '--mac-address', '-m', '--memory', '--memory-reservation', '--memory-swap', '--memory-swappiness', '--mount', '--name', '--network', '--net', '--network-alias', '--net-alias', '--oom-score-adj', '--pid', '--pids-limit', '--platform', '-p', '--publish', '--pull', '--restart', '--runtime', '--security-opt', '--shm-size', '--stop-signal', '--stop-timeout', '--storage-opt', '--sysctl', '--tmpfs', '--ulimit', '-u', '--user', '--userns', '--uts', '-v', '--volume', '--volume-driver', '--volumes-from', '-w', '--workdir'];

/**
 * podman-run(1)'s options that take a value, https://docs.podman.io/en/latest/markdown/podman-run.1.html:
 * docker run's and podman's own.
 */
const PODMAN_RUN = [...DOCKER_RUN, '--arch', '--authfile', '--cert-dir', '--cgroup-conf', '--cgroups', '--chrootdirs', '--conmon-pidfile', '--creds', '--decryption-key', '--device-cgroup-rule', '--env-merge', '--gidmap', '--group-entry', '--hostuser', '--image-volume', '--init-path', '--os', '--passwd-entry', '--personality', '--pidfile', '--pod', '--pod-id-file', '--preserve-fd', '--rdt-class', '--requires', '--retry', '--retry-delay', '--sdnotify', '--seccomp-policy', '--secret', '--subgidname', '--subuidname', '--timeout', '--tz', '--uidmap', '--umask', '--unsetenv', '--variant'];

/**
 * Compose's run options that take a value, https://docs.docker.com/reference/cli/docker/compose/run/
 * (`docker compose run [OPTIONS] SERVICE [COMMAND] [ARGS...]`; also `docker-compose run`).
 */
const COMPOSE_RUN = ['--cap-add', '--cap-drop', '--entrypoint', '-e', '--env', '--env-from-file', '-l', '--label', '--name', '-p', '--publish', '--pull', '-u', '--user', '-v', '--volume', '-w', '--workdir'];

/** A subcommand that runs a command inside something else (`docker exec CONTAINER cmd …`). */
interface Launch {
  /** The subcommand's words after the program (`exec`, `container exec`). */
  readonly path: readonly string[];
  /** Options before each of those words that take the next word as their value (the program's global options). */
  readonly before: readonly string[];
  /** The subcommand's options that take the next word as their value. */
  readonly valued: readonly string[];
  /** Operands between its options and the command (the container, the pod). */
  readonly operands: number;
  /** Options that stand for the operand (`podman exec --latest`). */
  readonly instead?: readonly string[];
  /** The command follows the first `--` when there is one (kubectl exec). */
  readonly dashes?: boolean;
}

/**
 * Where the command a subcommand runs is ({@link launchedAt}): the index of its first word, and
 * for a run given `--entrypoint` the option's value, the program those words are arguments of
 * (`docker run --entrypoint sh img -c '…'` runs `sh -c '…'`).
 */
export interface Launched {
  readonly at: number;
  readonly entrypoint?: OptionValue;
}

/**
 * Programs whose subcommand runs a command: docker exec
 * https://docs.docker.com/reference/cli/docker/container/exec/ (`-e`, `--env-file`, `-u`, `-w`,
 * `--detach-keys`, then CONTAINER; also `docker container exec`), podman-exec(1)
 * https://docs.podman.io/en/latest/markdown/podman-exec.1.html (also `--preserve-fd(s)`,
 * `--cidfile`; `-l, --latest` takes the container's place), kubectl exec
 * https://kubernetes.io/docs/reference/kubectl/generated/kubectl_exec/ (`kubectl exec POD --
 * COMMAND`; before `--` its own `-c`, `-f`, `--pod-running-timeout` and kubectl's global options,
 * https://kubernetes.io/docs/reference/kubectl/generated/kubectl_options/), and Compose's exec
 * https://docs.docker.com/reference/cli/docker/compose/exec/ (`docker compose exec SERVICE
 * COMMAND`, also the older `docker-compose`: `-e`, `--index`, `-u`, `-w`; before `exec`,
 * Compose's own `-f`, `-p`, `--profile`, `--env-file`, `--project-directory`, `--ansi`,
 * `--progress`, `--parallel`, https://docs.docker.com/reference/cli/docker/compose/), and `docker
 * run [OPTIONS] IMAGE [COMMAND] [ARG...]` / `podman run` (also `container run`), the command
 * after the image ({@link DOCKER_RUN}, {@link PODMAN_RUN}), and Compose's run, the command after
 * the service ({@link COMPOSE_RUN}).
 */
let launches: ReadonlyMap<string, readonly Launch[]> | undefined;
function launchRules(): ReadonlyMap<string, readonly Launch[]> {
  if (launches) return launches;
  const dockerExec = ['-e', '--env', '--env-file', '-u', '--user', '-w', '--workdir', '--detach-keys'];
  const podmanExec = [...dockerExec, '--preserve-fd', '--preserve-fds', '--cidfile'];
  const kubectlGlobals = ['-n', '--namespace', '--context', '--kubeconfig', '-s', '--server', '--cluster', '--user', '--token', '--as', '--as-group', '--as-uid', '--certificate-authority', '--client-certificate', '--client-key', '--request-timeout', '--cache-dir', '--tls-server-name', '-v', '--v', '--vmodule', '--log-file'];
  const composeGlobals = ['-f', '--file', '-p', '--project-name', '--profile', '--env-file', '--project-directory', '--ansi', '--progress', '--parallel'];
  const composeExec = ['-e', '--env', '--index', '-u', '--user', '-w', '--workdir'];
  const container = (path: readonly string[], before: readonly string[], valued: readonly string[], instead?: readonly string[]): Launch => ({ path, before, valued, operands: 1, instead });
  launches = new Map<string, readonly Launch[]>([
    ['docker', [container(['exec'], DOCKER_GLOBALS, dockerExec), container(['container', 'exec'], DOCKER_GLOBALS, dockerExec), container(['compose', 'exec'], [...DOCKER_GLOBALS, ...composeGlobals], composeExec), container(['compose', 'run'], [...DOCKER_GLOBALS, ...composeGlobals], COMPOSE_RUN), container(['run'], DOCKER_GLOBALS, DOCKER_RUN), container(['container', 'run'], DOCKER_GLOBALS, DOCKER_RUN)]],
    ['docker-compose', [container(['exec'], composeGlobals, composeExec), container(['run'], composeGlobals, COMPOSE_RUN)]],
    ['podman', [container(['exec'], PODMAN_GLOBALS, podmanExec, ['-l', '--latest']), container(['container', 'exec'], PODMAN_GLOBALS, podmanExec, ['-l', '--latest']), container(['run'], PODMAN_GLOBALS, PODMAN_RUN), container(['container', 'run'], PODMAN_GLOBALS, PODMAN_RUN)]],
    ['kubectl', [{ path: ['exec'], before: kubectlGlobals, valued: [...kubectlGlobals, '-c', '--container', '-f', '--filename', '--pod-running-timeout'], operands: 1, dashes: true }]],
  ]);
  return launches;
}

/**
 * The command that `words[i]`'s subcommand runs (`docker exec -u root c mysql …` → `mysql`,
 * `kubectl exec pod -- mysql …` → `mysql`; with a run's `--entrypoint X`, X with the words after
 * the image or service as its arguments), or undefined when the words are not that subcommand or
 * name no command.
 */
function launchedCommand(words: readonly Word[], i: number, launch: Launch): Launched | undefined {
  let at = i + 1;
  for (const step of launch.path) {
    at = skipOptions(words, at, launch.before);
    if (at >= words.length || words[at]!.text !== step) return undefined;
    at++;
  }
  if (launch.dashes) {
    for (let j = at; j < words.length; j++) if (words[j]!.text === '--') return j + 1 < words.length ? { at: j + 1 } : undefined;
  }
  let operands = launch.operands;
  let entrypoint: OptionValue | undefined;
  const takesEntrypoint = launch.valued.includes('--entrypoint');
  at = afterOptions(words, at, launch.valued, (text, k) => {
    if (launch.instead?.includes(text)) operands = 0;
    // The last one counts; `--entrypoint ""` puts the image's own back (the words run as they are).
    if (takesEntrypoint && text.startsWith('--entrypoint')) entrypoint = longValue(words, k, '--entrypoint');
  });
  at += operands;
  if (entrypoint !== undefined && entrypoint.word.text.length > entrypoint.from) return { at: Math.min(at, words.length), entrypoint };
  return at < words.length ? { at } : undefined;
}

/** The command that program `name` (at `words[i]`) runs through one of its subcommands ({@link Launched}), or undefined. */
export function launchedAt(words: readonly Word[], i: number, name: string): Launched | undefined {
  const list = launchRules().get(name);
  if (list === undefined) return undefined;
  for (const launch of list) {
    const launched = launchedCommand(words, i, launch);
    if (launched !== undefined) return launched;
  }
  return undefined;
}

/**
 * Whether `words[k]` is among the options of `run` (or `container run`) of docker or podman at
 * `words[i]`, before the image: `--secret NAME` there names a secret (secret-names.ts).
 */
export function isRunOption(words: readonly Word[], i: number, name: string, k: number): boolean {
  if (name !== 'docker' && name !== 'podman') return false;
  for (const launch of launchRules().get(name)!) {
    if (launch.path[launch.path.length - 1] !== 'run' || launch.path[0] === 'compose') continue;
    let at = i + 1;
    let matched = true;
    for (const step of launch.path) {
      at = skipOptions(words, at, launch.before);
      if (at >= words.length || words[at]!.text !== step) {
        matched = false;
        break;
      }
      at++;
    }
    if (!matched) continue;
    while (at <= k) {
      const text = words[at]!.text;
      if (text === '--' || !text.startsWith('-') || text === '-') return false;
      if (at === k) return true;
      at += takesNext(text, launch.valued) ? 2 : 1;
    }
  }
  return false;
}
