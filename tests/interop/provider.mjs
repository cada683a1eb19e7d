// A standards-certified OpenID provider (the `oidc-provider` package) for fw's interoperability
// tests. It listens on 127.0.0.1 only, on a free port unless one is given, and prints one JSON
// line {"issuer": "...", "port": N} on stdout once it is ready.
//
// Configuration: a JSON object as the first argument or in the env var FW_INTEROP_CONFIG.
// Every member is optional:
//
//   port          number; 0 (default) picks a free port
//   issuer        the issuer identifier, when the provider is reached through a proxy in front of
//                 it (default: http://127.0.0.1:<port>); the endpoints its discovery document
//                 names follow each request's Host, as behind a proxy
//   clients       oidc-provider client metadata, e.g.
//                 [{"client_id": "api-client", "client_secret": "s3cret",
//                   "grant_types": ["client_credentials"], "response_types": [],
//                   "redirect_uris": [], "scope": "orders.read"}]
//                 for a browser login add a client with "grant_types": ["authorization_code"],
//                 "response_types": ["code"], "redirect_uris": ["http://127.0.0.1:8000/auth/callback"]
//   resources     resource indicators -> resource server info; tokens for a resource are JWT
//                 access tokens (typ at+jwt), e.g.
//                 {"urn:fw:api": {"scope": "orders.read orders.write", "accessTokenTTL": 300}}
//                 ("audience" defaults to the indicator, "accessTokenFormat" to "jwt")
//   defaultResource  indicator used when a request names none (default: the first resource)
//   accounts      {"alice": {"email": "alice@example.com", "name": "Alice"}}: sub -> claims, for
//                 logins through the built-in development interactions
//   claims        oidc-provider `claims` (scope -> claim names); default maps openid, email, profile
//   features      merged over the defaults below (clientCredentials, resourceIndicators,
//                 devInteractions, deviceFlow, revocation, introspection, rpInitiatedLogout)
//   scopes        extra scope names the provider supports (resource scopes, openid and
//                 offline_access are always supported)
//   ttl           oidc-provider `ttl` overrides (seconds)
//   pkceRequired  boolean; default true (PKCE required for every authorization code flow)
//
// Back-channel logout: enable it with "features": {"backchannelLogout": {"enabled": true}} and a
// client "backchannel_logout_uri"; outgoing requests may reach loopback (the apps under test).
//
// The signing key is generated at start (RS256), so keys never live in the repository.

import { generateKeyPairSync } from 'node:crypto';
import http from 'node:http';

import Provider from 'oidc-provider';

const raw = process.argv[2] || process.env.FW_INTEROP_CONFIG || '{}';
const options = JSON.parse(raw);

const resources = options.resources || {};
const firstResource = Object.keys(resources)[0];
const accounts = options.accounts || {};

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const signingKey = { ...privateKey.export({ format: 'jwk' }), kid: 'interop-rs256', use: 'sig', alg: 'RS256' };

const server = http.createServer();
await new Promise((resolve) => { server.listen(options.port || 0, '127.0.0.1', resolve); });
const { port } = server.address();
const issuer = options.issuer || `http://127.0.0.1:${port}`;

const features = {
  clientCredentials: { enabled: true },
  devInteractions: { enabled: true },
  deviceFlow: { enabled: true },
  revocation: { enabled: true },
  introspection: { enabled: true },
  rpInitiatedLogout: { enabled: true },
  resourceIndicators: {
    enabled: true,
    defaultResource: async (_ctx, _client, oneOf) => {
      if (oneOf) return oneOf;
      return options.defaultResource || firstResource;
    },
    useGrantedResource: async () => true,
    getResourceServerInfo: async (_ctx, indicator) => {
      const info = resources[indicator];
      if (!info) throw new Provider.errors.InvalidTarget();
      return {
        audience: indicator,
        accessTokenFormat: 'jwt',
        accessTokenTTL: 300,
        jwt: { sign: { alg: 'RS256' } },
        ...info,
      };
    },
  },
  ...(options.features || {}),
};

const provider = new Provider(issuer, {
  clients: options.clients || [],
  scopes: [...new Set([
    'openid',
    'offline_access',
    ...(options.scopes || []),
    ...Object.values(resources).flatMap((info) => (info.scope || '').split(' ').filter(Boolean)),
  ])],
  jwks: { keys: [signingKey] },
  features,
  claims: options.claims || {
    openid: ['sub'],
    email: ['email', 'email_verified'],
    profile: ['name', 'preferred_username'],
  },
  pkce: { required: () => options.pkceRequired !== false },
  ttl: { ClientCredentials: 300, ...(options.ttl || {}) },
  // oidc-provider refuses outgoing requests to special-use addresses (SSRF protection); the
  // apps under test listen on loopback, so back-channel logout deliveries must reach 127.0.0.1.
  fetch: (url, { dispatcher: _ssrfGuard, ...options }) => globalThis.fetch(url, options),
  findAccount: async (_ctx, sub) => ({
    accountId: sub,
    claims: async () => ({ sub, ...(accounts[sub] || {}) }),
  }),
});

server.on('request', provider.callback());
// Back-channel logout deliveries that failed are reported on stderr (tests keep it for a failure).
provider.on('backchannel.error', (_ctx, err, client) => {
  process.stderr.write(`backchannel logout to ${client.clientId} failed: ${err.message}\n`);
});
process.stdout.write(`${JSON.stringify({ issuer, port })}\n`);

const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
