import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { programMay } from '../../src/output/redact-programs.js';
import { redactArgv, redactText } from '../../src/output/redact.js';

// Command text and argv that users and agents write are kept in cordon.log, runs.jsonl and the
// markers verbatim; `curl -H 'Authorization: Bearer …'` put the token in all three. The shared
// redaction (src/output/redact.ts) keeps what ran and replaces only the secret with `***`.

const GHP = 'ghp_16C7e42F292c6912E7710c838347Ae178B4a';

describe('redactText', () => {
  it.each([
    // HTTP Authorization / Proxy-Authorization (RFC 9110): the scheme stays.
    [`curl -H 'Authorization: Bearer abc.def' https://x`, `curl -H 'Authorization: Bearer ***' https://x`],
    [`curl -H "Proxy-Authorization: Basic dXNlcjpwYXNz" https://x`, `curl -H "Proxy-Authorization: Basic ***" https://x`],
    [`curl -H 'authorization: token abc' https://x`, `curl -H 'authorization: token ***' https://x`],
    [`curl -H 'Authorization: Digest username="a", response="b"' https://x`, `curl -H 'Authorization: Digest ***' https://x`],
    [`Authorization: Bearer abc`, `Authorization: Bearer ***`],
    [`Authorization: rawtoken123`, `Authorization: ***`],
    [`requests.get(u, headers={'Authorization': 'Bearer abc'})`, `requests.get(u, headers={'Authorization': 'Bearer ***'})`],
    // Other credential headers.
    [`curl -H 'Cookie: session=abc; other=def' https://x`, `curl -H 'Cookie: ***' https://x`],
    [`curl -H 'X-Api-Key: abc123' -H 'Private-Token: xyz'`, `curl -H 'X-Api-Key: ***' -H 'Private-Token: ***'`],
    // URL userinfo (RFC 3986) and url.ts's secret query parameters.
    [`git clone https://user:hunter2@github.com/org/repo.git`, `git clone https://***@github.com/org/repo.git`],
    [`psql postgres://app:s3cr%40t@db:5432/app`, `psql postgres://***@db:5432/app`],
    [`curl 'https://api.x.com/v1?token=abc123&x=1'`, `curl 'https://api.x.com/v1?token=***&x=1'`],
    [`curl https://x/y?a=1&api_key=abc`, `curl https://x/y?a=1&api_key=***`],
    // Long options.
    [`tool --password=hunter2`, `tool --password=***`],
    [`tool --token abc --api-key 'a b' --db-password "x y"`, `tool --token *** --api-key '***' --db-password "***"`],
    [`tool --client-secret=abc --secret s --apikey k`, `tool --client-secret=*** --secret *** --apikey ***`],
    // NAME=value and JSON members.
    [`GITHUB_TOKEN=abc gh pr list`, `GITHUB_TOKEN=*** gh pr list`],
    [`export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY; aws s3 ls`, `export AWS_SECRET_ACCESS_KEY=***; aws s3 ls`],
    [`db_password='p w' OPENAI_API_KEY="k" x-token=abc APIKEY=1 MY_CREDENTIALS=c run`, `db_password='***' OPENAI_API_KEY="***" x-token=*** APIKEY=*** MY_CREDENTIALS=*** run`],
    [`docker build --build-arg NPM_TOKEN=abc .`, `docker build --build-arg NPM_TOKEN=*** .`],
    [`curl -d '{"user":"a","password":"hunter2"}' https://x`, `curl -d '{"user":"a","password":"***"}' https://x`],
    // Token shapes, their public prefix kept.
    [`git push https://${GHP}@github.com/o/r`, `git push https://ghp_***@github.com/o/r`],
    [`echo ${GHP}`, `echo ghp_***`],
    [`echo github_pat_11ABCDEFG0abcdefghijklmnopqrstuvwxyz0123456789`, `echo github_pat_***`],
    [`glab auth login --hostname x glpat-xxxxxxxxxxxxxxxxxxxx`, `glab auth login --hostname x glpat-***`],
    [`post xoxb-1234567890-abcdefghij`, `post xoxb-***`],
    [`echo sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD`, `echo sk-***`],
    [`echo sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCD`, `echo sk-ant-***`],
    [`stripe charges list --api-base x sk_live_abcdefghij1234 rk_live_abcdefghij1234`, `stripe charges list --api-base x sk_live_*** rk_live_***`],
    [`aws configure set aws_access_key_id AKIAIOSFODNN7EXAMPLE`, `aws configure set aws_access_key_id AKIA***`],
    [`echo ASIAIOSFODNN7EXAMPLE`, `echo ASIA***`],
    [`npm config set //registry.npmjs.org/:_authToken npm_abcdefghijklmnopqrstuvwxyz0123456789`, `npm config set //registry.npmjs.org/:_authToken npm_***`],
    [`curl https://maps.googleapis.com/x?k=AIzaSyA-abcdefghijklmnopqrstuvwxyz01234`, `curl https://maps.googleapis.com/x?k=AIza***`],
    [`echo eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abcDEF_ghi | jwt`, `echo *** | jwt`],
    [`printf '%s' '-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----' > k`, `printf '%s' '-----BEGIN RSA PRIVATE KEY-----***-----END RSA PRIVATE KEY-----' > k`],
  ])('%s', (input, expected) => {
    expect(redactText(input)).toBe(expected);
    expect(redactText(expected)).toBe(expected);
  });

  it.each([
    'ls -la /tmp',
    'npm test -- --runInBand',
    'git checkout 3f2a9c0e5b7d4e1f2a3b4c5d6e7f8a9b0c1d2e3f',
    'git log --format=%H -n 3',
    'ls /tmp/550e8400-e29b-41d4-a716-446655440000',
    'git clone git@github.com:org/repo.git',
    'ssh -p 2222 deploy@example.com',
    'curl https://example.com/search?q=tokens&page=2',
    'export PATH=/usr/local/bin:$PATH',
    'PWD=/home/u make',
    'TOKEN_FILE=/run/secrets/t AWS_ACCESS_KEY_ID_FILE=/x run',
    'echo $GITHUB_TOKEN',
    'curl -H "Authorization: Bearer $TOKEN" https://x',
    'tool --token "$TOKEN" --password=${{ secrets.PW }}',
    'grep -rn password src/',
    'kubectl get secret my-secret -o yaml',
    'docker run my-secret:latest',
    'docker login --password-stdin -u me registry',
    'psql --password -h db',
    'gh auth login --with-token < token.txt',
    'tool --token-file ./t --secret-file ./s --no-password',
    'docker run -u 1000:1000 -e FOO=bar image@sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae',
    'npm_config_cache=/tmp/x npm ci',
    'python -m pytest tests/test_task_scheduler.py -k "not slow"',
    'sed -i "s/a=b/c/" file.txt && cat file.txt | wc -l',
    'cordon control run --hint memory:low -- make -j8',
    'node -e "console.log(process.argv)" a b',
    'tsc -b && node scripts/build-packages.mjs',
    "jq '.items[] | {name: .name, key: .key}' in.json",
    'echo AKIA is a prefix; task-runner --risk-assessment-report-2024-annual-final',
  ])('leaves %s unchanged', (input) => {
    expect(redactText(input)).toBe(input);
  });
});

// Single-letter flags are credentials only for the program that defines them: `curl -u
// admin:hunter2` and `mysql -phunter2` were kept verbatim in cordon.log, runs.jsonl and the
// markers, while `docker run -u 1000:1000` and `ssh -p 2222` must stay. The table of programs
// (src/output/redact-programs.ts) masks them in those programs' commands only.
describe('redactText: credential options of listed programs', () => {
  const secret: ReadonlyArray<readonly [string, string]> = [
    // curl: user:password keeps the user; the attached and clustered forms too.
    ['curl -u admin:hunter2 https://x', 'curl -u admin:*** https://x'],
    ['curl --user admin:hunter2 https://x', 'curl --user admin:*** https://x'],
    ['curl -uadmin:hunter2 https://x', 'curl -uadmin:*** https://x'],
    ['curl -fsSLu admin:hunter2 https://x', 'curl -fsSLu admin:*** https://x'],
    ['curl -U proxy:hunter2 https://x', 'curl -U proxy:*** https://x'],
    ['curl --proxy-user proxy:hunter2 https://x', 'curl --proxy-user proxy:*** https://x'],
    ['curl --oauth2-bearer hunter2 https://x', 'curl --oauth2-bearer *** https://x'],
    ["curl -u 'admin:hunter 2' https://x", "curl -u 'admin:***' https://x"],
    ['curl --user="admin:hunter2" https://x', 'curl --user="admin:***" https://x'],
    ["curl -u admin:'hunter 2'\"x\" https://x", "curl -u admin:'***'\"\" https://x"],
    // mysql and its family: the password attached to -p.
    ['mysql -phunter2 db', 'mysql -p*** db'],
    ['mysqldump -u root -phunter2 db > d.sql', 'mysqldump -u root -p*** db > d.sql'],
    ["mariadb -p'hunter 2' -e 'select 1'", "mariadb -p'***' -e 'select 1'"],
    ['/usr/bin/mysql -p"hunter2" -h db', '/usr/bin/mysql -p"***" -h db'],
    // sshpass: the password, not the -p of the command it runs.
    ['sshpass -p hunter2 ssh -p 2222 deploy@host', 'sshpass -p *** ssh -p 2222 deploy@host'],
    ['sshpass -phunter2 scp f host:', 'sshpass -p*** scp f host:'],
    // redis-cli.
    ['redis-cli -a hunter2 ping', 'redis-cli -a *** ping'],
    ['redis-cli --pass hunter2 --askpass ping', 'redis-cli --pass *** --askpass ping'],
    // openssl: pass:password only, `-k` of enc whole.
    ['openssl enc -aes-256-cbc -pass pass:hunter2 -in a -out b', 'openssl enc -aes-256-cbc -pass pass:*** -in a -out b'],
    ['openssl rsa -passin pass:hunter2 -passout pass:hunter3 -in k', 'openssl rsa -passin pass:*** -passout pass:*** -in k'],
    ['openssl enc -d -aes256 -k hunter2 -in a', 'openssl enc -d -aes256 -k *** -in a'],
    ["openssl pkcs12 -export -password 'pass:hunter2' -in c", "openssl pkcs12 -export -password 'pass:***' -in c"],
    // OpenLDAP clients.
    ['ldapsearch -x -D cn=admin -w hunter2 -b dc=x', 'ldapsearch -x -D cn=admin -w *** -b dc=x'],
    ['ldapsearch -xw hunter2 -b dc=x', 'ldapsearch -xw *** -b dc=x'],
    ['ldapwhoami -whunter2', 'ldapwhoami -w***'],
    ['ldappasswd -a old2 -s new2 -w hunter2 uid=x', 'ldappasswd -a *** -s *** -w *** uid=x'],
    // Registry logins.
    ['docker login -u me -p hunter2 registry.x', 'docker login -u me -p *** registry.x'],
    ['podman login -phunter2 quay.io', 'podman login -p*** quay.io'],
    // smbclient: user%password keeps the user.
    ['smbclient //h/share -U user%hunter2', 'smbclient //h/share -U user%***'],
    ["smbclient //h/share --user='DOM\\user%hunter2'", "smbclient //h/share --user='DOM\\user%***'"],
    // mongosh.
    ['mongosh mongodb://h/db -u admin -p hunter2', 'mongosh mongodb://h/db -u admin -p ***'],
    // docker's global options before login.
    ['docker --config /tmp/d login -u me -p hunter2 r.x', 'docker --config /tmp/d login -u me -p *** r.x'],
    ['docker -H tcp://h:2375 login --password=hunter2 r.x', 'docker -H tcp://h:2375 login --password=*** r.x'],
    ['podman --root /var/x login -p hunter2 quay.io', 'podman --root /var/x login -p *** quay.io'],
    // sqlcmd -P (not -p, which prints statistics).
    ['sqlcmd -S db -U sa -P hunter2 -Q "select 1"', 'sqlcmd -S db -U sa -P *** -Q "select 1"'],
    ['sqlcmd -S db -Phunter2 -p', 'sqlcmd -S db -P*** -p'],
    // ssh-keygen's old and new passphrases.
    ['ssh-keygen -p -P old2 -N new2 -f k', 'ssh-keygen -p -P *** -N *** -f k'],
    ['ssh-keygen -t ed25519 -qN hunter2 -f k', 'ssh-keygen -t ed25519 -qN *** -f k'],
    // zip, unzip, 7-Zip.
    ['zip -P hunter2 out.zip f', 'zip -P *** out.zip f'],
    ['zip -rP hunter2 out.zip dir', 'zip -rP *** out.zip dir'],
    ['unzip -P hunter2 a.zip -d out', 'unzip -P *** a.zip -d out'],
    ['unzip -qoPhunter2 a.zip', 'unzip -qoP*** a.zip'],
    ['7z x -phunter2 a.7z', '7z x -p*** a.7z'],
    ['7za a -p"hunter 2" -mhe=on a.7z f', '7za a -p"***" -mhe=on a.7z f'],
  ];

  // Each also in a pipeline, after `&&`, `sudo`, `env X=1` and inside `bash -c '…'`.
  const around = (input: string): Array<(text: string) => string> => [
    (t) => t,
    (t) => `${t} | tee out.log`,
    (t) => `cd /w && ${t}; echo done`,
    (t) => `sudo ${t}`,
    (t) => `sudo -u root -E ${t}`,
    (t) => `env X=1 ${t}`,
    (t) => `A=1 B=2 time nohup ${t}`,
    (t) => `timeout -s KILL -k 5 30s ${t}`,
    (t) => `nice -n 5 ionice -c 3 stdbuf -oL ${t}`,
    (t) => `docker exec -e A=b -u root -it c ${t}`,
    (t) => `kubectl -n ns exec -it pod -c db -- ${t}`,
    ...(input.includes("'") ? [] : [(t: string) => `bash -lc '${t}'`, (t: string) => `ssh -p 2222 -i k deploy@host '${t}'`]),
  ];

  it.each(secret.flatMap(([input, expected]) => around(input).map((wrap) => [wrap(input), wrap(expected)] as const)))('%s', (input, expected) => {
    expect(redactText(input)).toBe(expected);
    expect(redactText(expected)).toBe(expected);
  });

  const ordinary = [
    'docker run -u 1000:1000 image',
    'docker run -p 8080:80 image',
    'podman run -p 80:80 image',
    'ssh -p 2222 deploy@host',
    'grep -p pattern file',
    'mysql -P 3306 -h db',
    'mysql -u root -p db',
    'curl -k https://x',
    'curl -u admin https://x',
    'curl -u "$USER:$PASS" https://x',
    'curl -u admin:$PASS https://x',
    'curl -u "admin:${PASS}" https://x',
    'mysql -p"$DB_PASSWORD" db',
    'redis-cli --askpass ping',
    'openssl enc -pass env:PW -in a',
    'openssl enc -pass file:/run/pw -in a',
    'smbclient -U user //h/share',
    'sshpass -f pwfile ssh -p 2222 host',
    'ldapsearch -x -W -b dc=x',
    'git commit -m "mysql -p fix"',
    'mongosh --port 27017 -u admin',
    'curl -H "X-Trace: 1" -o out -sSL https://x',
    'zip -r out.zip dir',
    'zip -e out.zip f',
    'unzip -d /tmp/x a.zip',
    '7z a -p a.7z f',
    "ssh-keygen -t ed25519 -N '' -f k",
    'ssh-keygen -lf k.pub',
    'sqlcmd -S db -E -p -Q "select 1"',
    'docker --config /tmp/d run -p 80:80 image',
  ];
  it.each(ordinary.flatMap((input) => around(input).map((wrap) => wrap(input))))('leaves %s unchanged', (input) => {
    expect(redactText(input)).toBe(input);
  });
});

// The commands that other commands run: wrappers with options that take a value (whose value
// must not be read as the program), a container's or pod's command, ssh's remote command. Before,
// `timeout -s KILL 5 mysql -pX` and `ssh host 'mysql -pX'` kept the password.
describe('redactText: commands run by wrappers, containers and ssh', () => {
  it.each([
    ['timeout 5 mysql -phunter2 db', 'timeout 5 mysql -p*** db'],
    ['timeout -s KILL 5 mysql -phunter2', 'timeout -s KILL 5 mysql -p***'],
    ['timeout --signal=KILL --kill-after 3 5s mysql -phunter2', 'timeout --signal=KILL --kill-after 3 5s mysql -p***'],
    ['timeout -- 5 mysql -phunter2', 'timeout -- 5 mysql -p***'],
    ['nice -n 5 mysql -phunter2', 'nice -n 5 mysql -p***'],
    ['nice -5 mysql -phunter2', 'nice -5 mysql -p***'],
    ['nice --adjustment=5 mysql -phunter2', 'nice --adjustment=5 mysql -p***'],
    ['ionice -c 2 -n 7 mysql -phunter2', 'ionice -c 2 -n 7 mysql -p***'],
    ['stdbuf -o L -eL mysql -phunter2', 'stdbuf -o L -eL mysql -p***'],
    ['find . -name "*.sql" | xargs -0 -n 1 -P 4 -I {} mysql -phunter2 db', 'find . -name "*.sql" | xargs -0 -n 1 -P 4 -I {} mysql -p*** db'],
    ['doas -u _mysql mysql -phunter2', 'doas -u _mysql mysql -p***'],
    ['docker exec -e A=b -u root c mysql -phunter2', 'docker exec -e A=b -u root c mysql -p***'],
    ['docker exec -it --workdir /w c sh -c "mysql -phunter2 < d.sql"', 'docker exec -it --workdir /w c sh -c "mysql -p*** < d.sql"'],
    ['docker -H tcp://h container exec c redis-cli -a hunter2 ping', 'docker -H tcp://h container exec c redis-cli -a *** ping'],
    ['podman exec --latest mysql -phunter2', 'podman exec --latest mysql -p***'],
    ['docker compose -f dev.yml -p app exec -T -u root db mysql -uroot -phunter2', 'docker compose -f dev.yml -p app exec -T -u root db mysql -uroot -p***'],
    ['docker-compose --env-file .env exec -e A=b db sh -c "mysql -phunter2"', 'docker-compose --env-file .env exec -e A=b db sh -c "mysql -p***"'],
    ['podman exec -u 0 c mongosh -p hunter2', 'podman exec -u 0 c mongosh -p ***'],
    ['kubectl exec -n db pod -- mysql -phunter2', 'kubectl exec -n db pod -- mysql -p***'],
    ['kubectl --context prod exec -it pod -c c -- bash -c "redis-cli -a hunter2 info"', 'kubectl --context prod exec -it pod -c c -- bash -c "redis-cli -a *** info"'],
    ['kubectl exec pod mysql -phunter2', 'kubectl exec pod mysql -p***'],
    ["ssh deploy@host 'mysql -phunter2 db < d.sql'", "ssh deploy@host 'mysql -p*** db < d.sql'"],
    ['ssh -p 2222 -o StrictHostKeyChecking=no host mysql -phunter2 db', 'ssh -p 2222 -o StrictHostKeyChecking=no host mysql -p*** db'],
    ['ssh -tt host -p 2222 "cd /srv && sudo mysql -phunter2"', 'ssh -tt host -p 2222 "cd /srv && sudo mysql -p***"'],
    ["sshpass -p hunter2 ssh -p 22 host 'curl -u a:hunter3 x'", "sshpass -p *** ssh -p 22 host 'curl -u a:*** x'"],
    ['ssh host sudo -u me "mysql -phunter2"', 'ssh host sudo -u me "mysql -p***"'],
    ['ssh -v -- host -- mysql -phunter2', 'ssh -v -- host -- mysql -p***'],
    ['timeout 60 ssh bastion \'docker exec db mysql -phunter2\'', 'timeout 60 ssh bastion \'docker exec db mysql -p***\''],
    // A command line inside a word is read from the word's text, so escaped quotes are quotes
    // (read from the raw source, `-p\"x y\"` left ` y\"` in sight).
    ['bash -c "mysql -p\\"x y\\" db"', 'bash -c "mysql -p\\"***\\" db"'],
    // watch: its words joined are a command line for sh -c, or with -x run as they are.
    [`watch -n 2 'mysql -phunter2 -e "show processlist"'`, `watch -n 2 'mysql -p*** -e "show processlist"'`],
    ['watch -n 2 mysql -phunter2 db', 'watch -n 2 mysql -p*** db'],
    ['watch -tx -q 3 mysql -phunter2 db', 'watch -tx -q 3 mysql -p*** db'],
    ['watch -d=permanent --interval 5 curl -u a:hunter2 x', 'watch -d=permanent --interval 5 curl -u a:*** x'],
    // su and runuser: -c/--command and -C/--session-command, before or after the user.
    ["su -c 'mysql -phunter2 db' postgres", "su -c 'mysql -p*** db' postgres"],
    ['su - postgres -c "sshpass -p hunter2 ssh h"', 'su - postgres -c "sshpass -p *** ssh h"'],
    ["su -s /bin/sh --command='curl -u a:hunter2 x' app", "su -s /bin/sh --command='curl -u a:*** x' app"],
    ["su -lc'mysql -phunter2' app", "su -lc'mysql -p***' app"],
    ["su --session-command 'redis-cli -a hunter2 ping'", "su --session-command 'redis-cli -a *** ping'"],
    ["runuser -u app -- sh -c 'mysql -phunter2'", "runuser -u app -- sh -c 'mysql -p***'"],
    ['runuser -u app mysql -phunter2', 'runuser -u app mysql -p***'],
    // flock: FILE then -c 'line' or the command.
    ["flock /tmp/l -c 'mysql -phunter2 db'", "flock /tmp/l -c 'mysql -p*** db'"],
    ['flock -w 5 -E 3 /tmp/l mysql -phunter2 db', 'flock -w 5 -E 3 /tmp/l mysql -p*** db'],
    ["flock -n /tmp/l --command 'curl -u a:hunter2 x'", "flock -n /tmp/l --command 'curl -u a:*** x'"],
    // find's -exec, -execdir, -ok, -okdir up to `;` or `{} +`.
    ["find . -name '*.sql' -exec mysql -phunter2 db -e 'source {}' \\;", "find . -name '*.sql' -exec mysql -p*** db -e 'source {}' \\;"],
    ["find . -type f -newermt 2024-01-01 -execdir curl -u a:hunter2 -T {} x ';' -print", "find . -type f -newermt 2024-01-01 -execdir curl -u a:*** -T {} x ';' -print"],
    [`find . -exec sh -c 'mysql -phunter2 < "$1"' _ {} +`, `find . -exec sh -c 'mysql -p*** < "$1"' _ {} +`],
    ['find . -ok sshpass -p hunter2 scp {} h: \\; -okdir mysql -phunter3 \\;', 'find . -ok sshpass -p *** scp {} h: \\; -okdir mysql -p*** \\;'],
    // env: -S's words take its place among env's arguments; assignments before the command.
    ["env -S 'mysql -phunter2 db'", "env -S 'mysql -p*** db'"],
    ["env -S'-i A=1 mysql -u root' -phunter2 db", "env -S'-i A=1 mysql -u root' -p*** db"],
    ["env --split-string='curl -u a:hunter2' x", "env --split-string='curl -u a:***' x"],
    ['env -i A=1 -u B -C /w mysql -phunter2', 'env -i A=1 -u B -C /w mysql -p***'],
    // Variables that hold a command line, and ssh_config commands given with -o.
    [`GIT_SSH_COMMAND='ssh -i key -o ProxyCommand="sshpass -p hunter2 ssh -W %h:%p bastion"' git fetch`, `GIT_SSH_COMMAND='ssh -i key -o ProxyCommand="sshpass -p *** ssh -W %h:%p bastion"' git fetch`],
    ["env GIT_SSH_COMMAND='sshpass -p hunter2 ssh' git push", "env GIT_SSH_COMMAND='sshpass -p *** ssh' git push"],
    ["export GIT_SSH_COMMAND='sshpass -p hunter2 ssh'", "export GIT_SSH_COMMAND='sshpass -p *** ssh'"],
    ["RSYNC_RSH='sshpass -p hunter2 ssh -l me' rsync -a d h:", "RSYNC_RSH='sshpass -p *** ssh -l me' rsync -a d h:"],
    ["ssh -o ProxyCommand='sshpass -p hunter2 ssh -W %h:%p b' host", "ssh -o ProxyCommand='sshpass -p *** ssh -W %h:%p b' host"],
    ["ssh -o 'ProxyCommand sshpass -p hunter2 ssh -W %h:%p b' host uptime", "ssh -o 'ProxyCommand sshpass -p *** ssh -W %h:%p b' host uptime"],
    ['ssh -oProxyCommand="sshpass -phunter2 ssh b" host', 'ssh -oProxyCommand="sshpass -p*** ssh b" host'],
    ["ssh -vo 'proxycommand = sshpass -p hunter2 ssh b' host", "ssh -vo 'proxycommand = sshpass -p *** ssh b' host"],
    ["ssh host -o RemoteCommand='mysql -phunter2'", "ssh host -o RemoteCommand='mysql -p***'"],
    ["scp -P 2222 -o ProxyCommand='sshpass -p hunter2 ssh b' f host:", "scp -P 2222 -o ProxyCommand='sshpass -p *** ssh b' f host:"],
    // docker run / podman run: the command after the image.
    ['docker run --rm -e A=b -v /a:/b mysql:8 mysql -phunter2 -h db', 'docker run --rm -e A=b -v /a:/b mysql:8 mysql -p*** -h db'],
    ["docker run -it --name x -u 1000 --network host img sh -c 'curl -u a:hunter2 x'", "docker run -it --name x -u 1000 --network host img sh -c 'curl -u a:*** x'"],
    ['docker -H tcp://h container run --entrypoint "" img mysql -phunter2', 'docker -H tcp://h container run --entrypoint "" img mysql -p***'],
    ['podman run --pod p --tz UTC img redis-cli -a hunter2 ping', 'podman run --pod p --tz UTC img redis-cli -a *** ping'],
    // Compose's run: the command after the service.
    ['docker compose run --rm -e A=b -p 80:80 web mysql -phunter2', 'docker compose run --rm -e A=b -p 80:80 web mysql -p***'],
    ['docker compose -f dev.yml run --entrypoint "" --name x web sh -c "mysql -phunter2"', 'docker compose -f dev.yml run --entrypoint "" --name x web sh -c "mysql -p***"'],
    ["docker-compose run -u root -v /a:/b web sh -c 'curl -u a:hunter2 x'", "docker-compose run -u root -v /a:/b web sh -c 'curl -u a:*** x'"],
    // git: a `-c` that sets a command (core.sshCommand, core.gitProxy, core.editor,
    // sequence.editor, core.pager), and rebase's --exec/-x.
    ["git -c core.sshCommand='sshpass -p hunter2 ssh -i key' fetch", "git -c core.sshCommand='sshpass -p *** ssh -i key' fetch"],
    [`git -c core.sshCommand='ssh -i key -o ProxyCommand="sshpass -p hunter2 ssh -W %h:%p b"' push`, `git -c core.sshCommand='ssh -i key -o ProxyCommand="sshpass -p *** ssh -W %h:%p b"' push`],
    ["git -C /r -c user.name=me -c CORE.SSHCOMMAND='sshpass -phunter2 ssh' pull", "git -C /r -c user.name=me -c CORE.SSHCOMMAND='sshpass -p*** ssh' pull"],
    ["git -c core.pager='mysql -phunter2' log", "git -c core.pager='mysql -p***' log"],
    ["git rebase --exec 'mysql -phunter2 db < t.sql' main", "git rebase --exec 'mysql -p*** db < t.sql' main"],
    ["git rebase -x 'curl -u a:hunter2 x' main", "git rebase -x 'curl -u a:*** x' main"],
    ["git -c user.name=me rebase -i --onto o -ix'redis-cli -a hunter2 ping' main", "git -c user.name=me rebase -i --onto o -ix'redis-cli -a *** ping' main"],
    ['git rebase --exec="mysql -phunter2" main', 'git rebase --exec="mysql -p***" main'],
    // rsync: -e/--rsh and --rsync-path hold a command line.
    ["rsync -e 'sshpass -p hunter2 ssh -p 22' -a d h:", "rsync -e 'sshpass -p *** ssh -p 22' -a d h:"],
    ["rsync -avze 'sshpass -p hunter2 ssh' d h:", "rsync -avze 'sshpass -p *** ssh' d h:"],
    [`rsync --rsh="ssh -o ProxyCommand='sshpass -p hunter2 ssh b'" d h:`, `rsync --rsh="ssh -o ProxyCommand='sshpass -p *** ssh b'" d h:`],
    ["rsync -a --rsync-path='sudo mysql -phunter2' d h:", "rsync -a --rsync-path='sudo mysql -p***' d h:"],
    // A long option abbreviated to a prefix no other option shares (getopt_long, git's parse-options).
    ["git rebase --ex 'mysql -phunter2' main", "git rebase --ex 'mysql -p***' main"],
    ["git rebase -i --exe='curl -u a:hunter2 x' main", "git rebase -i --exe='curl -u a:*** x' main"],
    ["su --comm 'mysql -phunter2' app", "su --comm 'mysql -p***' app"],
    ["su - app --se='curl -u a:hunter2 x'", "su - app --se='curl -u a:*** x'"],
    ["runuser -u app --c 'mysql -phunter2'", "runuser -u app --c 'mysql -p***'"],
    ["env --split='mysql -phunter2' db", "env --split='mysql -p***' db"],
    ['watch --ex mysql -phunter2 -e x', 'watch --ex mysql -p*** -e x'],
    ["flock /tmp/l --com 'mysql -phunter2'", "flock /tmp/l --com 'mysql -p***'"],
    ["flock /tmp/l --command='curl -u a:hunter2 x'", "flock /tmp/l --command='curl -u a:*** x'"],
    // git's other settings and subcommands that hold a command line.
    ["git -c alias.deploy='!mysql -phunter2 db' deploy", "git -c alias.deploy='!mysql -p*** db' deploy"],
    ["git -c 'credential.https://h.example.helper=!curl -u a:hunter2 https://vault/x' fetch", "git -c 'credential.https://h.example.helper=!curl -u a:*** https://vault/x' fetch"],
    ["git -c Diff.Secret.Command='mysql -phunter2' diff", "git -c Diff.Secret.Command='mysql -p***' diff"],
    ["git -c filter.lfs.smudge='curl -u a:hunter2 x' checkout .", "git -c filter.lfs.smudge='curl -u a:*** x' checkout ."],
    ["git -c diff.external='sshpass -p hunter2 d' diff", "git -c diff.external='sshpass -p *** d' diff"],
    ["git bisect run mysql -phunter2 -e 'select 1'", "git bisect run mysql -p*** -e 'select 1'"],
    ["git bisect run sh -c 'curl -u a:hunter2 x'", "git bisect run sh -c 'curl -u a:*** x'"],
    ["git submodule foreach 'curl -u a:hunter2 x'", "git submodule foreach 'curl -u a:*** x'"],
    ['git submodule --quiet foreach --recursive mysql -phunter2 db', 'git submodule --quiet foreach --recursive mysql -p*** db'],
    ["git filter-branch --tree-filter 'curl -u a:hunter2 x' HEAD", "git filter-branch --tree-filter 'curl -u a:*** x' HEAD"],
    ["git filter-branch -f --env-filter='mysql -phunter2 -e x' -- --all", "git filter-branch -f --env-filter='mysql -p*** -e x' -- --all"],
    ["git difftool -y -x 'mysql -phunter2' HEAD", "git difftool -y -x 'mysql -p***' HEAD"],
    ["git difftool --ext='curl -u a:hunter2 x' HEAD", "git difftool --ext='curl -u a:*** x' HEAD"],
    // A run's --entrypoint is the program; the words after the image or service are its arguments.
    ["docker run --rm --entrypoint sh img -c 'mysql -phunter2 db'", "docker run --rm --entrypoint sh img -c 'mysql -p*** db'"],
    ['docker compose run --entrypoint sh web -c "curl -u a:hunter2 x"', 'docker compose run --entrypoint sh web -c "curl -u a:*** x"'],
    ['docker run --entrypoint=mysql img -phunter2 db', 'docker run --entrypoint=mysql img -p*** db'],
    [`podman run --entrypoint 'sh -c "mysql -phunter2"' img`, `podman run --entrypoint 'sh -c "mysql -p***"' img`],
    ["docker-compose run --entrypoint 'mysql -phunter2' db", "docker-compose run --entrypoint 'mysql -p***' db"],
  ])('%s', (input, expected) => {
    expect(redactText(input)).toBe(expected);
    expect(redactText(expected)).toBe(expected);
  });

  it.each([
    'timeout 5 ls -p',
    'timeout -s KILL 5 make -j8',
    'nice -n 5 ls -p',
    'xargs -P 4 -n 1 ls -p',
    'doas -u root ls -p',
    'docker exec -u 1000:1000 c ls -p',
    'docker exec -p 80 c',
    'docker run -u 1000:1000 -p 80:80 mysql:8',
    'docker compose -p app up -d mysql',
    'docker compose exec db ls -p',
    'podman exec -l ls -p',
    'kubectl exec pod -- ls -p',
    'kubectl port-forward pod 3306:3306 -n db',
    'ssh -p 2222 host',
    'ssh -p 2222 host ls -p',
    "ssh -p 2222 host 'ls -p /srv'",
    'ssh -L 3306:db:3306 -N bastion',
    'scp -P 2222 f host:',
    // Look-alikes: the wrapper's name as a file, an option's value, or without its command.
    "cat watch 'mysql -phunter2'",
    'ls -l watch flock su find',
    "echo su -c 'mysql -phunter2'",
    "find . -name '-exec' -print",
    'find . -name -exec mysql -phunter2 \\;',
    "find . -printf '-exec mysql -phunter2 ;'",
    'watch -n 5 ls -p',
    'flock -w 5 /tmp/l ls -p',
    // Settings and subcommands of git that hold no command line, or a harmless one.
    'git -c alias.st=status st',
    "git -c alias.t='!make test' t",
    'git -c credential.helper=store push',
    'git bisect run make test',
    'git rebase --edit-todo',
    'git submodule update --init',
    'git difftool --extcmd=meld HEAD',
    "docker run --entrypoint sh img -c 'ls -p'",
    'docker run --entrypoint "" img ls -p',
    "su -c 'ls -p' app",
    'env -S "ls -p"',
    "ssh -o 'User mysql -phunter2' host",
    'ssh -o ProxyJump=mysql host',
    "GIT_AUTHOR_NAME='mysql -phunter2' git commit",
    'docker run -p 3306:3306 mysql',
    'podman run -u 0 -p 80:80 redis-cli',
    'docker compose run -p 3306:3306 web ls -p',
    'git -c core.editor=vim -c core.sshCommand="ssh -p 2222 -i key" fetch',
    "git rebase -x 'make test' main",
    "rsync -B 1024 -e 'ssh -p 2222' -a d h:",
    // podman run's --secret names a stored secret (podman-run(1)); its value never is on the line.
    'podman run --rm --secret mysecret img',
    'podman run --secret=mysecret,type=env,target=DB_TOKEN img',
    'sudo podman container run -e A=b --secret s --secret t img ls',
    'docker run --secret mysecret img',
    "bash -c 'podman run --secret mysecret img'",
    'docker exec c podman run --secret mysecret img',
  ])('leaves %s unchanged', (input) => {
    expect(redactText(input)).toBe(input);
  });

  // Wrappers carry no secret of their own: text naming none of the table's programs is not
  // scanned at all (the pre-test), however many wrappers it holds; each new program passes it.
  // Secrets the general rules mask are masked inside those commands as when run directly.
  it.each([
    ["git -c core.sshCommand='TOKEN=abc ssh' fetch", "git -c core.sshCommand='TOKEN=*** ssh' fetch"],
    ["GIT_SSH_COMMAND='API_KEY=abc ssh' git fetch", "GIT_SSH_COMMAND='API_KEY=*** ssh' git fetch"],
    ["git -c core.sshCommand='ssh --password hunter2' fetch", "git -c core.sshCommand='ssh --password ***' fetch"],
    [`git rebase --exec 'curl -H "Authorization: Bearer abc" x' main`, `git rebase --exec 'curl -H "Authorization: Bearer ***" x' main`],
    ["git rebase -x 'TOKEN=abc make deploy' main", "git rebase -x 'TOKEN=*** make deploy' main"],
    ["rsync -e 'ssh -o SendEnv=X' --rsync-path='TOKEN=abc rsync' d h:", "rsync -e 'ssh -o SendEnv=X' --rsync-path='TOKEN=*** rsync' d h:"],
    ["docker compose run web curl -H 'Authorization: Bearer abc' x", "docker compose run web curl -H 'Authorization: Bearer ***' x"],
    // `--secret` anywhere else still holds a value.
    ['podman run img --secret hunter2', 'podman run img --secret ***'],
    ['podman --secret hunter2 run img', 'podman --secret *** run img'],
    ['podman run --secret s img && deploy --secret hunter2', 'podman run --secret s img && deploy --secret ***'],
  ])('%s', (input, expected) => {
    expect(redactText(input)).toBe(expected);
    expect(redactText(expected)).toBe(expected);
  });

  it('scans only text that names a listed program', () => {
    for (const text of ['timeout 5 nice -n 5 ls -p', 'docker exec -u root c ls -la', 'kubectl exec pod -- ls', 'ssh -p 2222 host uptime', 'xargs -n 1 echo'])
      expect(programMay(text.toLowerCase())).toBe(false);
    for (const text of ['sqlcmd -P x', 'ssh-keygen -N x', 'zip -P x', 'unzip -P x', '7z x -px', 'docker --config d login -p x'])
      expect(programMay(text.toLowerCase())).toBe(true);
  });
});

describe('redactArgv: credential options of listed programs', () => {
  it.each([
    [['curl', '-u', 'admin:hunter2', 'https://x'], ['curl', '-u', 'admin:***', 'https://x']],
    [['curl', '--user=admin:hunter 2', 'https://x'], ['curl', '--user=admin:***', 'https://x']],
    [['curl', '-sSuadmin:hunter2'], ['curl', '-sSuadmin:***']],
    [['/usr/bin/mysql', '-phunter2', 'db'], ['/usr/bin/mysql', '-p***', 'db']],
    [['sudo', '-u', 'root', 'env', 'X=1', 'mysqldump', '-phunter2'], ['sudo', '-u', 'root', 'env', 'X=1', 'mysqldump', '-p***']],
    [['sshpass', '-p', 'hunter2', 'ssh', '-p', '2222', 'host'], ['sshpass', '-p', '***', 'ssh', '-p', '2222', 'host']],
    [['redis-cli', '-a', 'hunter 2', 'ping'], ['redis-cli', '-a', '***', 'ping']],
    [['openssl', 'enc', '-pass', 'pass:hunter2', '-k', 'hunter3'], ['openssl', 'enc', '-pass', 'pass:***', '-k', '***']],
    [['ldapsearch', '-xw', 'hunter2'], ['ldapsearch', '-xw', '***']],
    [['docker', 'login', '-p', 'hunter2', 'r'], ['docker', 'login', '-p', '***', 'r']],
    [['smbclient', '-U', 'user%hunter2', '//h/s'], ['smbclient', '-U', 'user%***', '//h/s']],
    [['mongosh', '-p', 'hunter2'], ['mongosh', '-p', '***']],
    [['bash', '-c', 'curl -u admin:hunter2 x | jq .'], ['bash', '-c', 'curl -u admin:*** x | jq .']],
    [['timeout', '-s', 'KILL', '5', 'mysql', '-phunter2'], ['timeout', '-s', 'KILL', '5', 'mysql', '-p***']],
    [['nice', '-n', '5', 'zip', '-P', 'hunter2', 'o.zip', 'f'], ['nice', '-n', '5', 'zip', '-P', '***', 'o.zip', 'f']],
    [['docker', 'exec', '-e', 'A=b', '-u', 'root', 'c', 'mysql', '-phunter2'], ['docker', 'exec', '-e', 'A=b', '-u', 'root', 'c', 'mysql', '-p***']],
    [['kubectl', 'exec', 'pod', '--', 'sqlcmd', '-P', 'hunter2'], ['kubectl', 'exec', 'pod', '--', 'sqlcmd', '-P', '***']],
    [['ssh', '-p', '2222', 'host', 'mysql', '-phunter2'], ['ssh', '-p', '2222', 'host', 'mysql', '-p***']],
    [['ssh', 'host', 'mysql -phunter2 db'], ['ssh', 'host', 'mysql -p*** db']],
    // An element that merely mentions a listed program is masked too: each element is also
    // redacted as a command line, since many programs run one (`su -c`, `watch`, `flock -c`,
    // `git rebase --exec`, ssh's words); the command itself gets its argv unchanged.
    [['git', 'commit', '-m', 'mysql -phunter2 fails'], ['git', 'commit', '-m', 'mysql -p*** fails']],
    // Wrappers whose command is their words, or is spliced from one element (env -S).
    [['watch', '-n', '2', 'mysql', '-phunter2'], ['watch', '-n', '2', 'mysql', '-p***']],
    [['flock', '/tmp/l', 'mysql', '-phunter2'], ['flock', '/tmp/l', 'mysql', '-p***']],
    [['find', '.', '-exec', 'mysql', '-phunter2', '{}', ';'], ['find', '.', '-exec', 'mysql', '-p***', '{}', ';']],
    [['env', '-S', 'mysql -u root', '-phunter2'], ['env', '-S', 'mysql -u root', '-p***']],
    [['env', '-S', 'curl -u a:hunter2 -U p:hunter3 x'], ['env', '-S', 'curl -u a:*** -U p:*** x']],
    [['env', 'GIT_SSH_COMMAND=sshpass -p hunter2 ssh', 'git', 'fetch'], ['env', 'GIT_SSH_COMMAND=sshpass -p *** ssh', 'git', 'fetch']],
    [['ssh', '-o', 'ProxyCommand sshpass -p hunter2 ssh b', 'host'], ['ssh', '-o', 'ProxyCommand sshpass -p *** ssh b', 'host']],
    [['su', '-c', 'mysql -phunter2', 'app'], ['su', '-c', 'mysql -p***', 'app']],
    [['docker', 'run', '--rm', '-v', '/a:/b', 'img', 'mysql', '-phunter2'], ['docker', 'run', '--rm', '-v', '/a:/b', 'img', 'mysql', '-p***']],
    [['find', '.', '-name', '-exec', 'mysql', '-phunter2'], ['find', '.', '-name', '-exec', 'mysql', '-phunter2']],
    [['watch', '-n', '5', 'mysql -phunter2 -e "show processlist"'], ['watch', '-n', '5', 'mysql -p*** -e "show processlist"']],
    [['docker', 'compose', 'run', '-e', 'A=b', 'web', 'mysql', '-phunter2'], ['docker', 'compose', 'run', '-e', 'A=b', 'web', 'mysql', '-p***']],
    [['docker-compose', 'run', 'web', 'redis-cli', '-a', 'hunter2'], ['docker-compose', 'run', 'web', 'redis-cli', '-a', '***']],
    [['git', '-c', 'core.sshCommand=sshpass -p hunter2 ssh', 'fetch'], ['git', '-c', 'core.sshCommand=sshpass -p *** ssh', 'fetch']],
    [['git', '-c', 'core.sshCommand=TOKEN=abc ssh', 'fetch'], ['git', '-c', 'core.sshCommand=TOKEN=*** ssh', 'fetch']],
    [['git', 'rebase', '-x', 'mysql -phunter2', 'main'], ['git', 'rebase', '-x', 'mysql -p***', 'main']],
    [['rsync', '-e', 'sshpass -p hunter2 ssh', 'd', 'h:'], ['rsync', '-e', 'sshpass -p *** ssh', 'd', 'h:']],
    // podman run's --secret is a name; elsewhere a value.
    [['podman', 'run', '--secret', 'mysecret', 'img'], ['podman', 'run', '--secret', 'mysecret', 'img']],
    [['sudo', 'podman', 'run', '--secret=mysecret', 'img'], ['sudo', 'podman', 'run', '--secret=mysecret', 'img']],
    [['podman', 'run', 'img', '--secret', 'hunter2'], ['podman', 'run', 'img', '--secret', '***']],
    [['deploy', '--secret', 'hunter2'], ['deploy', '--secret', '***']],
    // Unchanged: other programs' -u/-p, prompts and references.
    [['docker', 'run', '-u', '1000:1000', '-p', '80:80', 'img'], ['docker', 'run', '-u', '1000:1000', '-p', '80:80', 'img']],
    [['ssh', '-p', '2222', 'host'], ['ssh', '-p', '2222', 'host']],
    [['timeout', '5', 'ls', '-p'], ['timeout', '5', 'ls', '-p']],
    [['zip', '-r', 'out.zip', 'dir'], ['zip', '-r', 'out.zip', 'dir']],
    [['mysql', '-p', 'db'], ['mysql', '-p', 'db']],
    [['curl', '-u', 'admin', '-k', 'x'], ['curl', '-u', 'admin', '-k', 'x']],
    [['curl', '-u', 'admin:$PASS'], ['curl', '-u', 'admin:$PASS']],
  ])('%j', (argv, expected) => {
    expect(redactArgv(argv)).toEqual(expected);
    expect(redactArgv(expected)).toEqual(expected);
  });
});

describe('the secret of a listed credential option never survives random words around it (property)', () => {
  const SECRET = 'Zq7SECRETvalue';
  // Options and operands of the program's own (no quotes or operators, which would change what the
  // shell reads; not `--`, which ends the options).
  const arg = fc.stringMatching(/^-{0,2}[a-z0-9.\/=:,+_%]{1,8}$/).filter((w) => w !== '--');
  const words = fc.array(arg, { maxLength: 4 });
  const forms: ReadonlyArray<readonly [string, string]> = [
    ['curl', `-u admin:${SECRET}`],
    ['curl', `--user=admin:${SECRET}`],
    ['curl', `-sSu 'admin:${SECRET}'`],
    ['curl', `-U p:${SECRET}`],
    ['curl', `--oauth2-bearer ${SECRET}`],
    ['mysql', `-p${SECRET}`],
    ['mariadb-dump', `-p"${SECRET}"`],
    ['redis-cli', `-a ${SECRET}`],
    ['openssl enc', `-pass pass:${SECRET}`],
    ['openssl', `-k ${SECRET}`],
    ['ldapsearch', `-xw ${SECRET}`],
    ['docker login', `-p ${SECRET}`],
    ['smbclient', `-U user%${SECRET}`],
    ['mongosh', `-p ${SECRET}`],
    ['docker --config /d login', `--password ${SECRET}`],
    ['sqlcmd', `-P ${SECRET}`],
    ['ssh-keygen', `-N ${SECRET}`],
    ['ssh-keygen', `-qP${SECRET}`],
    ['zip', `-rP ${SECRET}`],
    ['unzip', `-P ${SECRET}`],
    ['7z', `-p${SECRET}`],
  ];
  // Words that run the program: wrappers with their options, containers, pods, ssh.
  const runners = ['', 'sudo ', 'sudo -u root ', 'env X=1 ', 'nohup ', 'time ', 'exec ', 'command ', 'timeout 5 ', 'timeout -s KILL -k 3 5 ', 'nice -n 5 ', 'nice -5 ', 'ionice -c 3 ', 'stdbuf -oL -e L ', 'xargs -n 1 -I {} ', 'doas -u root ', 'docker exec -e A=b -u root c ', 'docker container exec -it c ', 'docker compose -f c.yml exec -T db ', 'podman exec -l ', 'kubectl exec -n ns pod -c x -- ', 'kubectl exec pod ', 'ssh -p 2222 host ', 'ssh host -l me ',
    'watch ', 'watch -n 2 -d ', 'watch -tx ', 'flock /tmp/l ', 'flock -w 5 -n /tmp/l ', 'find . -type f -exec ', 'find . -name x -execdir ', 'find . -ok ', 'env -i A=1 -u B ', 'runuser -u app -- ', 'docker run --rm -e A=b -v /a:/b img ', 'docker container run -it --name x img ', 'podman run -u 0 --pod p img ', 'ssh -o ProxyCommand=nc host '];
  // Wrappers that hold the command as one command line (text, argv).
  const lines: ReadonlyArray<readonly [(line: string) => string, (line: string) => string[]]> = [
    [(t) => `su -c '${t}' app`, (t) => ['su', '-c', t, 'app']],
    [(t) => `su - app --command='${t}'`, (t) => ['su', '-', 'app', `--command=${t}`]],
    [(t) => `flock -n /tmp/l -c '${t}'`, (t) => ['flock', '-n', '/tmp/l', '-c', t]],
    [(t) => `watch -n 5 '${t}'`, (t) => ['watch', '-n', '5', t]],
    [(t) => `env -S '${t}'`, (t) => ['env', '-S', t]],
    [(t) => `GIT_SSH_COMMAND='${t}' git fetch`, (t) => ['env', `GIT_SSH_COMMAND=${t}`, 'git', 'fetch']],
    [(t) => `export GIT_SSH_COMMAND="${t}"`, (t) => ['ssh', '-o', `ProxyCommand ${t}`, 'host']],
    [(t) => `ssh -o ProxyCommand='${t}' host`, (t) => ['ssh', `-oProxyCommand=${t}`, 'host']],
    [(t) => `git -C /r fetch; GIT_SSH_COMMAND='ssh -o ProxyCommand="${t}"' git fetch`, (t) => ['env', `GIT_SSH_COMMAND=ssh -o 'ProxyCommand=${t}'`, 'git', 'fetch']],
  ];
  const before = fc.constantFrom('cd /w && ', 'ls | ', 'true; ', 'X=1 ', ...runners);

  it('as a command line', () => {
    fc.assert(
      fc.property(fc.constantFrom(...forms), before, words, words, ([program, option], prefix, mid, post) => {
        const text = [`${prefix}${program}`, ...mid, option, ...post].join(' ');
        expect(redactText(text)).not.toContain(SECRET);
        expect(redactText(`bash -c "${text.replaceAll('"', '')}"`)).not.toContain(SECRET);
        expect(redactText(`ssh -p 2222 host '${text.replaceAll("'", '')}'`)).not.toContain(SECRET);
      }),
      { numRuns: 3000 },
    );
  });

  it('as a command line a wrapper holds', () => {
    fc.assert(
      fc.property(fc.constantFrom(...forms), fc.constantFrom(...lines), words, words, ([program, option], [line, argv], mid, post) => {
        const text = [program, ...mid, option, ...post].join(' ').replaceAll("'", '').replaceAll('"', '');
        expect(redactText(line(text))).not.toContain(SECRET);
        expect(redactArgv(argv(text)).join('\n')).not.toContain(SECRET);
      }),
      { numRuns: 3000 },
    );
  });

  it('as argv', () => {
    fc.assert(
      fc.property(fc.constantFrom(...forms), fc.constantFrom(...runners), words, words, ([program, option], runner, mid, post) => {
        const argv = [...runner.split(' ').filter((w) => w !== ''), ...program.split(' '), ...mid, ...option.replaceAll("'", '').replaceAll('"', '').split(' '), ...post];
        expect(redactArgv(argv).join('\n')).not.toContain(SECRET);
      }),
      { numRuns: 3000 },
    );
  });
});

// A hostile-input probe found `MYSQL_PWD=…`, `SSHPASS=…`, `REDISCLI_AUTH=…`, `DB_PASS=…`,
// `OPENAI_KEY=…` and a Slack webhook URL kept verbatim in cordon.log and runs.jsonl: the name rule
// knew only names ending in TOKEN, SECRET, PASSWORD …, and webhook URLs carry their secret in the
// path. Names are now read part by part (src/output/redact/variable-names.ts).
describe('redactText: secret variable names and webhook URLs', () => {
  it.each([
    [
      'cordon control run -- env MYSQL_PWD=hunter31 SSHPASS=hunter41 REDISCLI_AUTH=hunter40 DB_PASS=hunter44 DB_PWD=hunter45 OPENAI_KEY=hunter42 ANTHROPIC_KEY=hunter43 MY_PASSPHRASE=hunter46 true',
      'cordon control run -- env MYSQL_PWD=*** SSHPASS=*** REDISCLI_AUTH=*** DB_PASS=*** DB_PWD=*** OPENAI_KEY=*** ANTHROPIC_KEY=*** MY_PASSPHRASE=*** true',
    ],
    ['MYSQL_PWD=hunter60 mysql -u root db; SSHPASS=hunter61 sshpass -e ssh h; OPENAI_KEY=hunter62 x', 'MYSQL_PWD=*** mysql -u root db; SSHPASS=*** sshpass -e ssh h; OPENAI_KEY=*** x'],
    [`export PGPASSWORD='p w' BORG_PASSPHRASE="x" AUTH_TOKEN_SECRET=y mysql_pwd=z`, `export PGPASSWORD='***' BORG_PASSPHRASE="***" AUTH_TOKEN_SECRET=*** mysql_pwd=***`],
    ['SECRETS=a TOKENS=b DB_CREDENTIAL=c BASIC_AUTH=u:p ACCESS_KEY=d STRIPE_SECRET_KEY=e SECRET_KEY_BASE=f make', 'SECRETS=*** TOKENS=*** DB_CREDENTIAL=*** BASIC_AUTH=*** ACCESS_KEY=*** STRIPE_SECRET_KEY=*** SECRET_KEY_BASE=*** make'],
    ['docker run -e DB_PASS=x -e dbPass=y -e apiKey=z img', 'docker run -e DB_PASS=*** -e dbPass=*** -e apiKey=*** img'],
    [`curl -d '{"db_pwd":"a","auth":"b","openai_key":"c","user":"d"}' https://x`, `curl -d '{"db_pwd":"***","auth":"***","openai_key":"***","user":"d"}' https://x`],
    // Webhook URLs: the secret part of the path; host, ids and what follows stay.
    [`true 'https://hooks.slack.com/services/T000/B000/hunter47XXXXXXXXXXXXXXXX'`, `true 'https://hooks.slack.com/services/T000/B000/***'`],
    ['curl https://hooks.slack.com/workflows/T01/A02/123/hunter48 https://hooks.slack.com/triggers/T01/456/hunter49', 'curl https://hooks.slack.com/workflows/T01/A02/123/*** https://hooks.slack.com/triggers/T01/456/***'],
    ['curl -d x https://discord.com/api/webhooks/123456/hunter50-abc_DEF/slack?wait=true', 'curl -d x https://discord.com/api/webhooks/123456/***/slack?wait=true'],
    ['curl https://discordapp.com/api/v10/webhooks/123456/hunter51 && curl https://canary.discord.com/api/webhooks/1/hunter52', 'curl https://discordapp.com/api/v10/webhooks/123456/*** && curl https://canary.discord.com/api/webhooks/1/***'],
    ['curl -d @m.json "https://contoso.webhook.office.com/webhookb2/a1-b2@c3-d4/IncomingWebhook/hunter53/e5-f6"', 'curl -d @m.json "https://contoso.webhook.office.com/webhookb2/***"'],
    ['curl https://outlook.office.com/webhook/a1@c3/IncomingWebhook/hunter54/e5', 'curl https://outlook.office.com/webhook/***'],
  ])('%s', (input, expected) => {
    expect(redactText(input)).toBe(expected);
    expect(redactText(expected)).toBe(expected);
  });

  // htpasswd -b takes the password as its last operand (htpasswd/grammars): no option names it.
  it.each([
    ['htpasswd -b /etc/nginx/.htpasswd alice hunter70', 'htpasswd -b /etc/nginx/.htpasswd alice ***'],
    [`htpasswd -cbB -C 12 .htpasswd bob 'hunter 71'`, `htpasswd -cbB -C 12 .htpasswd bob '***'`],
    ['htpasswd -nb carol hunter72 > f', 'htpasswd -nb carol *** > f'],
    ['sudo htpasswd -bc f u hunter73; echo ok', 'sudo htpasswd -bc f u ***; echo ok'],
  ])('%s', (input, expected) => {
    expect(redactText(input)).toBe(expected);
    expect(redactText(expected)).toBe(expected);
    // The same words as argv, where splitting at spaces gives them (no quotes, no operators).
    if (!/['";>]/.test(input)) expect(redactArgv(input.split(' '))).toEqual(expected.split(' '));
  });

  it.each(['htpasswd /etc/h alice', 'htpasswd -c -B /etc/h alice', 'htpasswd -b /etc/h alice $PW', 'htpasswd -nbB dave', 'htpasswd -D /etc/h alice'])('leaves %s unchanged', (input) => {
    expect(redactText(input)).toBe(input);
  });

  it('redacts them in argv, one element each', () => {
    expect(redactArgv(['env', 'MYSQL_PWD=hunter31', 'OPENAI_KEY=hunter42', 'true'])).toEqual(['env', 'MYSQL_PWD=***', 'OPENAI_KEY=***', 'true']);
    expect(redactArgv(['curl', 'https://hooks.slack.com/services/T000/B000/hunter47XXXXXXXXXXXXXXXX'])).toEqual(['curl', 'https://hooks.slack.com/services/T000/B000/***']);
  });

  // `PWD` alone is the shell's working directory; PASS, KEY and AUTH glued into another word
  // (`COMPASS`, `MONKEY`, `AUTHOR`) say nothing; a last part like FILE, URL or ID names where a
  // secret is, or a public half of it.
  it.each([
    'PATH=/usr/bin HOME=/home/u KEYBOARD=us MONKEY=1 AUTHOR=me PWD=/some/dir OLDPWD=/x make',
    'COMPASS=n BYPASS=1 BYPASS_PROXY=1 TURKEY=2 KEY=k KEYS=a,b run',
    'AWS_ACCESS_KEY_ID=AKID OAUTH_CLIENT_ID=x OS_AUTH_URL=https://id.example/v3 AUTH_TYPE=oidc API_KEY_FILE=/run/k TOKEN_PATH=/t make',
    'export authorName=z bypassCache=1 passwordless=1',
    "git -c credential.helper=store -c diff.secret.command='diff -u' -c core.askPass=/bin/ask push",
    `curl -d '{"token_type":"bearer","author":"me","key":"Enter"}' https://x`,
    'curl https://hooks.slack.com/services/',
    'curl https://discord.com/api/webhooks/123',
    'curl https://example.com/webhooks/1/abc https://discord.com/channels/1/2',
  ])('leaves %s unchanged', (input) => {
    expect(redactText(input)).toBe(input);
  });

  it('is idempotent on text mixing secret names and webhook URLs (property)', () => {
    const piece = fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.constantFrom('MYSQL_PWD=', 'SSHPASS=', 'REDISCLI_AUTH=', 'OPENAI_KEY=', 'PWD=', 'COMPASS=', 'dbPass=', 'https://hooks.slack.com/services/T/B/', 'https://discord.com/api/webhooks/1/', 'https://x.webhook.office.com/webhookb2/', '/', '?', ' ', "'", '"', '=', '$', '***'),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 10 }), (parts) => {
        const once = redactText(parts.join(''));
        expect(redactText(once)).toBe(once);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('redactArgv', () => {
  it('redacts a value given as the next element of a secret long option, and each element as text', () => {
    expect(redactArgv(['mysql', '--password', 'hunter2', '-h', 'db'])).toEqual(['mysql', '--password', '***', '-h', 'db']);
    expect(redactArgv(['tool', '--api-key', 'a b', '--token', '-x'])).toEqual(['tool', '--api-key', '***', '--token', '-x']);
    expect(redactArgv(['tool', '--token', '$TOKEN'])).toEqual(['tool', '--token', '$TOKEN']);
    expect(redactArgv(['curl', '-H', 'Authorization: Bearer abc', 'https://u:p@h/'])).toEqual(['curl', '-H', 'Authorization: Bearer ***', 'https://***@h/']);
    expect(redactArgv(['sh', '-c', 'true', 'x-token=abc', 'Authorization: Bearer abc.def'])).toEqual(['sh', '-c', 'true', 'x-token=***', 'Authorization: Bearer ***']);
    expect(redactArgv(['bash', '-c', `curl -H 'Authorization: Bearer abc' https://x`])).toEqual(['bash', '-c', `curl -H 'Authorization: Bearer ***' https://x`]);
  });

  it('leaves ordinary argv as it is (a new array)', () => {
    const argv = ['git', 'commit', '-m', 'fix: token refresh (#12)', '--author', 'A <a@b.c>'];
    const out = redactArgv(argv);
    expect(out).toEqual(argv);
    expect(out).not.toBe(argv);
  });

  // Arbitrary words mixed with secret-shaped pieces: the shape of argv is kept and a second pass
  // changes nothing.
  const piece = fc.oneof(
    fc.string({ maxLength: 12 }),
    fc.constantFrom('--password', '--token', '--api-key', '-H', 'Authorization: Bearer ', 'Cookie: ', 'X-Api-Key: ', 'https://u:', '@host/', '?token=', 'TOKEN=', '"password":"', GHP, 'AKIAIOSFODNN7EXAMPLE', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.x', ' ', "'", '"', '=', '$', '***', '-----BEGIN PRIVATE KEY-----', '-----END PRIVATE KEY-----',
      // The program table's commands and their credential options.
      'curl ', 'mysql ', 'sshpass ', 'redis-cli ', 'openssl enc ', 'ldapsearch ', 'docker login ', 'smbclient ', 'mongosh ', 'sudo ', 'env X=1 ', ' | ', ' && ', '; ', 'bash -c ',
      ' -u ', ' -p', ' -p ', ' -a ', ' -w ', ' -U ', ' -k ', ' -pass ', '--user=', 'admin:', 'pass:', 'user%', '\\', '-sSu'),
  );
  const word = fc.array(piece, { maxLength: 6 }).map((parts) => parts.join(''));

  it('is idempotent and never changes the number of elements (property)', () => {
    fc.assert(
      fc.property(fc.array(word, { maxLength: 8 }), (argv) => {
        const once = redactArgv(argv);
        expect(once).toHaveLength(argv.length);
        expect(redactArgv(once)).toEqual(once);
        for (const text of argv) expect(redactText(redactText(text))).toBe(redactText(text));
      }),
      { numRuns: 5000 },
    );
  });
});

describe('redactText of a cut text (a window of a longer command)', () => {
  const alphabet = 'QVYZ56789';
  const body = (n: number) => Array.from({ length: n }, (_, i) => alphabet[(i * 5 + n) % alphabet.length]).join('');
  /** Secrets whose rules need what follows them (a length, a dot, an `@`, a closing quote), and one in a `bash -c` script. */
  const SECRETS = [`ghp_${body(36)}`, `AKIA${body(16)}`, `npm_${body(36)}`, `eyJ${body(8)}.eyJ${body(40)}.${body(20)}`, `https://me:${body(40)}@h.example/x`, `'{"api_key": "${body(40)}"}'`, `bash -c 'curl -u admin:${body(40)} x'`];

  it('masks a secret the cut runs through to the end; the same text not cut is left as it is', () => {
    expect(redactText('git clone https://me:abc', { cut: true })).toBe('git clone https://***');
    expect(redactText('git clone https://me:abc')).toBe('git clone https://me:abc');
    expect(redactText('echo ghp_ab', { cut: true })).toBe('echo ghp_***');
    expect(redactText('echo ghp_ab')).toBe('echo ghp_ab');
    expect(redactText(`curl -d '{"password": "hun`, { cut: true })).toBe(`curl -d '{"password": "***`);
    expect(redactText(`curl -d '{"name": "hun`, { cut: true })).toBe(`curl -d '{"name": "hun`);
    expect(redactText('x eyJhbGciOi.eyJzdWIi', { cut: true })).toBe('x ***');
    // A bash -c script whose quote is never closed is still read as the script.
    expect(redactText("bash -c 'curl -u admin:pw https://x")).toBe("bash -c 'curl -u admin:*** https://x");
  });

  it('leaves no two characters of a secret wherever the cut falls (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...SECRETS), fc.stringMatching(/^[a-z0-4 ._=:\/-]{0,40}$/), fc.nat(), (secret, before, at) => {
        const text = `${before} ; ${secret} end`;
        expect(redactText(text)).not.toMatch(/[QVYZ5-9]{2}/);
        expect(redactText(text.slice(0, at % (text.length + 1)), { cut: true })).not.toMatch(/[QVYZ5-9]{2}/);
      }),
      { numRuns: 500 },
    );
  });
});
