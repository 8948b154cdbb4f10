import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
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
    [`git clone https://user:hunter2@github.com/org/repo.git`, `git clone https://user:***@github.com/org/repo.git`],
    [`psql postgres://app:s3cr%40t@db:5432/app`, `psql postgres://app:***@db:5432/app`],
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
    'mysql -u root -psecret db',
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

describe('redactArgv', () => {
  it('redacts a value given as the next element of a secret long option, and each element as text', () => {
    expect(redactArgv(['mysql', '--password', 'hunter2', '-h', 'db'])).toEqual(['mysql', '--password', '***', '-h', 'db']);
    expect(redactArgv(['tool', '--api-key', 'a b', '--token', '-x'])).toEqual(['tool', '--api-key', '***', '--token', '-x']);
    expect(redactArgv(['tool', '--token', '$TOKEN'])).toEqual(['tool', '--token', '$TOKEN']);
    expect(redactArgv(['curl', '-H', 'Authorization: Bearer abc', 'https://u:p@h/'])).toEqual(['curl', '-H', 'Authorization: Bearer ***', 'https://u:***@h/']);
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
    fc.constantFrom('--password', '--token', '--api-key', '-H', 'Authorization: Bearer ', 'Cookie: ', 'X-Api-Key: ', 'https://u:', '@host/', '?token=', 'TOKEN=', '"password":"', GHP, 'AKIAIOSFODNN7EXAMPLE', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.x', ' ', "'", '"', '=', '$', '***', '-----BEGIN PRIVATE KEY-----', '-----END PRIVATE KEY-----'),
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
