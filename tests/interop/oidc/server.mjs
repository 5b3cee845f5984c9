// Interop peer 1: an unmodified oidc-provider (npm, OpenID certified) set up to look like the
// seed's authorization server (seed 001 parts 2, 4, 5 and 8), plus the two APIs whose tokens it
// issues. Only oidc-provider's documented configuration and its public model API are used.
//
//   node server.mjs --config stock|seedlike --port 0 --jwks-dir DIR --redirect-uri URI
//
// Prints `listening http://127.0.0.1:PORT` on stdout once it serves (the readiness line).
// Listens on 127.0.0.1 only. Everything is in memory and gone when the process ends.
//
// --config stock     oidc-provider's defaults wherever the seed leaves room: token lifetimes,
//                    refresh tokens only with `offline_access`, consent remembered per session,
//                    `nonce` only with `openid`, redirect_uri optional at the token endpoint for a
//                    client with one registered (allowOmittingSingleRegisteredRedirectUri).
// --config seedlike  as close to the seed as the library's options go: 3600 s access tokens (both
//                    flows), 604800 s refresh tokens issued in the code flow, 300 s codes, consent
//                    remembered per account and client, `nonce` without `openid` ignored (seed part 2),
//                    redirect_uri required at the token endpoint (RFC 6749 4.1.3).
//                    Not configurable in oidc-provider: the seed's client-assertion `aud` form
//                    (`{auth_host}:443/auth/oauth/v2/token`; it accepts only its issuer or token
//                    endpoint URL), x5c chain and OIN checks, Pragma, the seed's media-type spelling.
//
// Both: the seed's authorize and token paths, PKCE (S256 only) required for every client, the
// grants authorization_code, refresh_token and client_credentials, and these fixtures:
//   clients  a confidential one (client_secret_post), a public one (none), the inquiry client
//            (private_key_jwt, JWKS DIR/good.json), and one private_key_jwt client per bad JWKS
//            document of the test PKI and one for two_customers (DIR/<document>.json); the
//            confidential client may also ask for a second filing scope (fixtures.json consent_scope);
//   users    one with the role Aanbieder M2M, one without (ids and passwords: fixtures.json).
// DIR holds the JWKS documents of `conformance pki init` (the test writes them).

import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

// oidc-provider is installed with the project's other Node tools (tools/package.json).
const TOOLS = new URL('../../../tools/package.json', import.meta.url);
const { default: Provider, errors } = await import(
  pathToFileURL(createRequire(TOOLS).resolve('oidc-provider')).href);

const FILING_SCOPE = 'registry.cto.aanbieden.verzoeken';
const INQUIRY_SCOPE = 'registry-inzage';
const FILING_RESOURCE = 'urn:registry:filing';
const INQUIRY_RESOURCE = 'urn:registry:inquiry';
const FILING_WSDL_PATH = '/aanbiedenverzoeken/v1/aanbiedenVerzoeken.wsdl';
const INQUIRY_PATH = '/registry-inzage/v6';
const ROLE = 'Aanbieder M2M';

// Clients, secret and users: tests/interop/oidc/fixtures.json (the test reads the same file).
const FIXTURES = JSON.parse(fs.readFileSync(new URL('./fixtures.json', import.meta.url), 'utf8'));
const USERS = FIXTURES.users;
// Bad-material clients, and the client of two end customers (fixtures.json `clients` role ->
// client id) -> the test PKI's JWKS document each gets (conformance/auth/pki.py DOCUMENTS; the
// profile's client roles).
const BAD_DOCUMENTS = { no_x5c: 'no_x5c', untrusted: 'untrusted', expired: 'expired',
  unregistered_oin: 'unregistered_oin', twice_oin: 'twice_oin', x5c_mismatch: 'mismatch', no_oin: 'no_oin',
  not_yet_valid: 'not_yet_valid', revoked: 'revoked', other_branch: 'other_branch', oin_elsewhere: 'oin_elsewhere',
  two_customers: 'two_customers' };
// A second scope of the confidential client, at the filing API: consent for it is asked anew
// (the profile's services.auth.consent_scope).
const CONSENT_SCOPE = FIXTURES.consent_scope;

const { values: args } = parseArgs({
  options: {
    config: { type: 'string', default: 'stock' },
    port: { type: 'string', default: '0' },
    'jwks-dir': { type: 'string' },
    'redirect-uri': { type: 'string', default: 'http://127.0.0.1:8765/callback' },
  },
});
if (!['stock', 'seedlike'].includes(args.config) || !args['jwks-dir']) {
  process.stderr.write('usage: node server.mjs --config stock|seedlike --port N --jwks-dir DIR [--redirect-uri URI]\n');
  process.exit(2);
}
const SEEDLIKE = args.config === 'seedlike';

function readJwks(name) {
  return JSON.parse(fs.readFileSync(path.join(args['jwks-dir'], `${name}.json`), 'utf8'));
}

function clients(redirectUri) {
  const ids = FIXTURES.clients;
  const codeClient = { grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'],
    redirect_uris: [redirectUri] };
  const assertionClient = (clientId, jwks) => ({
    client_id: clientId, grant_types: ['client_credentials'], response_types: [], redirect_uris: [],
    token_endpoint_auth_method: 'private_key_jwt', token_endpoint_auth_signing_alg: 'RS256', jwks,
  });
  return [
    { ...codeClient, client_id: ids.confidential, client_secret: FIXTURES.client_secret,
      token_endpoint_auth_method: 'client_secret_post' },
    { ...codeClient, client_id: ids.public, token_endpoint_auth_method: 'none' },
    assertionClient(ids.client_credentials, readJwks('good')),
    ...Object.entries(BAD_DOCUMENTS).map(([role, document]) => assertionClient(ids[role], readJwks(document))),
  ];
}

// Which API a scope belongs to: oidc-provider issues access tokens for one resource server each
// (features.resourceIndicators); the seed's requests name only a scope, so the scope picks it.
function resourceFor(scope) {
  const scopes = new Set((scope || '').split(' '));
  if (scopes.has(FILING_SCOPE)) return FILING_RESOURCE;
  if (scopes.has(INQUIRY_SCOPE)) return INQUIRY_RESOURCE;
  return undefined;
}

// Consent once per account and client (seed part 5.2), across logins: the grant is looked up
// by account and client instead of only through the browser session (oidc-provider's default).
const grantsByAccountClient = new Map();

function configuration(redirectUri) {
  const config = {
    clients: clients(redirectUri),
    routes: { authorization: '/auth/oauth/v2/authorize', token: '/auth/oauth/v2/token' },
    pkce: { required: () => true },
    clientAuthMethods: ['client_secret_post', 'client_secret_basic', 'private_key_jwt', 'none'],
    cookies: { keys: [crypto.randomBytes(32).toString('base64url')] },
    jwks: { keys: [signingKey()] },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: async (ctx, client, oneOf) => (oneOf ? oneOf[0] : resourceFor(ctx.oidc.params.scope)),
        useGrantedResource: async () => true,
        getResourceServerInfo: async (ctx, resource, client) => {
          const codeClient = client.grantTypeAllowed('authorization_code');
          if (resource === FILING_RESOURCE && codeClient) return resourceServer(`${FILING_SCOPE} ${CONSENT_SCOPE}`, resource);
          if (resource === INQUIRY_RESOURCE && client.grantTypeAllowed('client_credentials')) {
            return resourceServer(INQUIRY_SCOPE, resource);
          }
          throw new errors.InvalidTarget();
        },
      },
    },
    async findAccount(ctx, sub) {
      return USERS[sub] ? { accountId: sub, claims: async () => ({ sub }) } : undefined;
    },
    interactions: { url: (ctx, interaction) => `/interaction/${interaction.uid}` },
  };
  if (SEEDLIKE) {
    // Seed part 8: access token 3600 s (both flows), refresh token 604800 s, code 300 s.
    config.ttl = { AccessToken: 3600, ClientCredentials: 3600, RefreshToken: 604800, AuthorizationCode: 300,
      Grant: 604800, Interaction: 3600, Session: 3600 };
    // Seed part 4 step 3: the code exchange returns a refresh token (no offline_access in the seed).
    config.issueRefreshToken = async (ctx, client) => client.grantTypeAllowed('refresh_token');
    // RFC 6749 4.1.3 (the seed's token requests carry it): redirect_uri is required at the token
    // endpoint when the authorization request had one; by default oidc-provider fills it in.
    config.allowOmittingSingleRegisteredRedirectUri = false;
    config.loadExistingGrant = async (ctx) => {
      const grantId = ctx.oidc.result?.consent?.grantId
        || ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId)
        || grantsByAccountClient.get(`${ctx.oidc.session.accountId}\n${ctx.oidc.client.clientId}`);
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    };
  }
  return config;
}

function resourceServer(scope, audience) {
  const info = { scope, audience, accessTokenFormat: 'opaque' };
  if (SEEDLIKE) info.accessTokenTTL = 3600;
  return info;
}

function signingKey() {
  const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { ...privateKey.export({ format: 'jwk' }), alg: 'RS256', use: 'sig', kid: 'oidc-peer-signing' };
}

// --- the login and consent pages (plain HTML forms) -------------------------------------------
function page(res, status, title, body) {
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head>`
    + `<body><h1>${title}</h1>${body}</body></html>`;
  res.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
  res.end(html);
}

function escape(text) {
  return String(text).replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

function loginForm(res, uid, message = '') {
  page(res, 200, 'Sign in', `${message ? `<p>${escape(message)}</p>` : ''}
<form method="post" action="/interaction/${uid}/login">
  <label>Username <input type="text" name="login" autocomplete="username"></label>
  <label>Password <input type="password" name="password" autocomplete="current-password"></label>
  <button type="submit">Sign in</button>
</form>`);
}

function consentForm(res, uid, clientId, scope) {
  page(res, 200, 'Authorize', `<p>${escape(clientId)} asks for: ${escape(scope)}</p>
<form method="post" action="/interaction/${uid}/confirm"><button type="submit">Allow</button></form>
<form method="post" action="/interaction/${uid}/abort"><button type="submit">Deny</button></form>`);
}

async function readForm(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

async function interaction(provider, req, res, uid, action) {
  const details = await provider.interactionDetails(req, res);
  const { prompt, params } = details;
  if (req.method === 'GET' && !action) {
    if (prompt.name === 'login') return loginForm(res, uid);
    return consentForm(res, uid, params.client_id, params.scope);
  }
  if (req.method !== 'POST') return page(res, 405, 'Method not allowed', '');
  if (action === 'login' && prompt.name === 'login') {
    const form = await readForm(req);
    const user = USERS[form.get('login')];
    if (!user || user.password !== form.get('password')) return loginForm(res, uid, 'Unknown user or wrong password.');
    // Seed part 1: the account must have the role Aanbieder M2M.
    if (!user.roles.includes(ROLE)) {
      return provider.interactionFinished(req, res, { error: 'access_denied',
        error_description: `the account lacks the role ${ROLE}` }, { mergeWithLastSubmission: false });
    }
    return provider.interactionFinished(req, res, { login: { accountId: form.get('login') } },
      { mergeWithLastSubmission: false });
  }
  if (action === 'confirm' && prompt.name === 'consent') {
    const grant = details.grantId ? await provider.Grant.find(details.grantId)
      : new provider.Grant({ accountId: details.session.accountId, clientId: params.client_id });
    const missing = prompt.details;
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
    for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes || {})) {
      grant.addResourceScope(indicator, scopes.join(' '));
    }
    const grantId = await grant.save();
    grantsByAccountClient.set(`${details.session.accountId}\n${params.client_id}`, grantId);
    return provider.interactionFinished(req, res, { consent: details.grantId ? {} : { grantId } },
      { mergeWithLastSubmission: true });
  }
  if (action === 'abort') {
    return provider.interactionFinished(req, res, { error: 'access_denied',
      error_description: 'the user denied the request' }, { mergeWithLastSubmission: false });
  }
  return page(res, 400, 'Bad request', '<p>This step does not fit the interaction.</p>');
}

// --- the two APIs: RFC 6750 bearer checks through oidc-provider's own token models ------------
const FILING_WSDL = `<?xml version="1.0" encoding="UTF-8"?>
<wsdl:definitions xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" name="AanbiedenVerzoeken"
    targetNamespace="http://www.registry.example/aanbiedenverzoeken/v1"/>
`;

async function resource(provider, req, res, { resourceId, scope, type, body }) {
  const realm = 'registry';
  const refuse = (status, error, description) => {
    const challenge = error ? `Bearer realm="${realm}", error="${error}", error_description="${description}"`
      : `Bearer realm="${realm}"`;
    res.writeHead(status, { 'WWW-Authenticate': challenge + (status === 403 ? `, scope="${scope}"` : ''),
      'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
    res.end(JSON.stringify(error ? { error, error_description: description } : {}));
  };
  if (req.method !== 'GET') return refuse(405, 'invalid_request', 'GET only');
  const header = req.headers.authorization;
  if (!header) return refuse(401);
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i.exec(header);
  if (!match) return refuse(401, 'invalid_token', 'not a Bearer token');
  const token = await provider.AccessToken.find(match[1]) || await provider.ClientCredentials.find(match[1]);
  if (!token || token.isExpired) return refuse(401, 'invalid_token', 'unknown, expired or revoked token');
  if (token.aud !== resourceId || !String(token.scope || '').split(' ').includes(scope)) {
    return refuse(403, 'insufficient_scope', `this API needs the scope ${scope}`);
  }
  res.writeHead(200, { 'Content-Type': type, 'Cache-Control': 'no-store' });
  res.end(body);
}

// --- the process ---------------------------------------------------------------------------
const server = http.createServer();
server.listen(Number(args.port), '127.0.0.1', () => {
  const origin = `http://127.0.0.1:${server.address().port}`;
  const provider = new Provider(origin, configuration(args['redirect-uri']));
  // Seed part 2: `nonce` is sent without `openid`; oidc-provider refuses that (it is an OpenID
  // Connect parameter), so seedlike drops it first, as a plain OAuth server ignores unknown ones.
  // A pre-middleware (provider.use, documented in "Pre- and post-middlewares"), not an option.
  if (SEEDLIKE) {
    provider.use(async (ctx, next) => {
      if (ctx.path === '/auth/oauth/v2/authorize' && ctx.query.nonce !== undefined
          && !String(ctx.query.scope || '').split(' ').includes('openid')) {
        const { nonce, ...rest } = ctx.query;
        ctx.query = rest;
      }
      await next();
    });
  }
  const callback = provider.callback();
  server.on('request', async (req, res) => {
    const url = new URL(req.url, origin);
    const step = /^\/interaction\/([\w-]+)(?:\/(login|confirm|abort))?$/.exec(url.pathname);
    try {
      if (step) return await interaction(provider, req, res, step[1], step[2]);
      if (url.pathname === FILING_WSDL_PATH) {
        return await resource(provider, req, res, { resourceId: FILING_RESOURCE, scope: FILING_SCOPE,
          type: 'text/xml; charset=utf-8', body: FILING_WSDL });
      }
      if (url.pathname === INQUIRY_PATH) {
        return await resource(provider, req, res, { resourceId: INQUIRY_RESOURCE, scope: INQUIRY_SCOPE,
          type: 'application/json', body: JSON.stringify({ service: 'registry-inzage', version: 'v6' }) });
      }
      return callback(req, res);
    } catch (err) {
      // An expired or foreign interaction (SessionNotFound and the like): an error page, no redirect.
      if (!res.headersSent) page(res, err.statusCode || err.status || 500, 'Error', `<p>${escape(err.message)}</p>`);
    }
  });
  process.stdout.write(`listening ${origin}\n`);
});
