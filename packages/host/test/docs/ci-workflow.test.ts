import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SAMPLE_WORKFLOW, unpublishedPackages, workflowProblems } from '../../../../test/support/github-workflow.js';

// docs/ci/github-workflow.yml is copied as it is: it must work as written. It once installed
// @cordon/host from the public npm registry, where no such package is published (and the name
// could become anyone's), with Node 20, past its end of life. test/e2e/registry runs its steps.

/** The sample as it was: what the check must refuse. */
const OLD = `
jobs:
  envelope:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: 20
      - run: npm install -g @cordon/host
      - run: cordon check --base origin/\${{ github.base_ref }} --format github
`;

describe('the sample GitHub workflow', () => {
  const unpublished = unpublishedPackages();

  it('installs cordon from a registry the @cordon scope is pointed at, on a Node cordon is tested on and in support', () => {
    expect(unpublished.has('@cordon/host')).toBe(true);
    expect(workflowProblems(readFileSync(SAMPLE_WORKFLOW, 'utf8'), unpublished)).toEqual([]);
  });

  it('the check refuses an install of an unpublished package from the public registry, and Node 20', () => {
    expect(workflowProblems(OLD, unpublished)).toEqual([
      'setup-node node-version 20: Node v20.0.0: tested, but Node 20 reached its end of life on 2026-04-30; Node 22 or 24 is recommended',
      "`npm install -g @cordon/host` installs @cordon/host from the public npm registry, where it is not published: point the @cordon scope at your team's registry first (npm config set @cordon:registry URL), or install from the checkout",
    ]);
    const steps = (run: string) => `jobs:\n  j:\n    steps:\n${run.split('\n').map((r) => `      - run: ${r}`).join('\n')}\n`;
    // Other spellings of the same install are the same fault.
    expect(workflowProblems(steps('npm i --global @cordon/host@0.1.0 @cordon/codex'), unpublished)).toHaveLength(2);
    expect(workflowProblems(steps('npm ci && npm install --prefix /opt/x -g @cordon/host'), unpublished)).toHaveLength(1);
    // The scope pointed elsewhere first, an explicit registry, a path or tarball, a published package: fine.
    expect(workflowProblems(steps('npm config set @cordon:registry https://npm.example.com/\nnpm install -g @cordon/host'), unpublished)).toEqual([]);
    expect(workflowProblems(steps('npm install -g --registry https://npm.example.com/ @cordon/host'), unpublished)).toEqual([]);
    expect(workflowProblems(steps('npm install -g ./cordon/packages/host ./cordon-host-0.1.0.tgz typescript'), unpublished)).toEqual([]);
    // Scoped to the wrong scope: still the public registry for @cordon.
    expect(workflowProblems(steps('npm config set @acme:registry https://npm.example.com/\nnpm install -g @cordon/host'), unpublished)).toHaveLength(1);
    // setup-node's own scope input does it too.
    const setup = 'jobs:\n  j:\n    steps:\n      - uses: actions/setup-node@v4\n        with:\n          node-version: 24\n          registry-url: https://npm.example.com/\n          scope: "@cordon"\n      - run: npm install -g @cordon/host\n';
    expect(workflowProblems(setup, unpublished)).toEqual([]);
  });
});
