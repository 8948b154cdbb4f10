import { definePlugin, type CordonPlugin } from '@cordon/plugin-api';

/**
 * Commands matching this pattern are denied by the example policy. A real adapter would read its
 * policy from its own config; the example takes it from `ACME_DENY` (a regular expression) so the
 * test can set it.
 */
function denyPattern(): RegExp | undefined {
  const source = process.env.ACME_DENY;
  return source ? new RegExp(source) : undefined;
}

/**
 * The `cordon:register` hook of this package (named in package.json under
 * `oclif.hooks["cordon:register"]`): returns the plugin descriptor. `definePlugin` stamps the
 * plugin API version this package was built against, which the host checks.
 */
export default async function register(): Promise<CordonPlugin> {
  return definePlugin({
    name: 'acme',
    apply(api) {
      // The dialect loads only when an Acme hook runs (`cordon hook --agent acme`).
      api.dialects.register({
        name: 'acme',
        sniff: (payload) => (typeof payload.acme_event === 'string' ? 1 : 0),
        load: async () => (await import('./dialect.js')).dialect,
      });
      // A policy: deny shell calls whose command matches ACME_DENY, for every agent.
      api.hooks.beforeToolCall.tapPromise({ name: 'acme-deny', stage: api.stage.POLICY }, async (call) => {
        const pattern = denyPattern();
        if (call.canonicalTool === 'shell' && pattern?.test(call.command)) return { kind: 'deny', reason: `blocked by acme policy: ${pattern.source}`, by: 'acme' };
        return undefined;
      });
    },
  });
}
