# syntax=docker/dockerfile:1
# Lingxi: the site, the CDN bundles and the API server in one image (docs/deployment.md,
# "Containers and Kubernetes"). Checked by server/test/deploy-manifests.test.ts: images cannot be
# built where the tests run, so the test reads this file against the server's config and build.
#
#   docker build -t lingxi .
#   docker run -p 8787:8787 -v lingxi-data:/data lingxi

ARG NODE_IMAGE=node:20-bookworm-slim

# 1. Build: every dependency (the build tools are dev dependencies), then the site, the CDN
#    bundles and the server (`--no-npm`: the SDK's npm package is not served, so not built), then
#    the dev dependencies are pruned away; what stays is what runs.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY server/package.json server/
COPY packages/shared/package.json packages/shared/
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build -- --no-npm \
  && npm prune --omit=dev --no-audit --no-fund \
  && mkdir -p server/node_modules

# 2. Runtime: what the server reads (server/src/paths.ts) and nothing else, as the unprivileged
#    `node` user (uid 1000). Every piece of state is under the one volume /data (DATA_DIR).
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8787 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/server/node_modules ./server/node_modules
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/server/package.json ./server/package.json
COPY --from=build /app/server/bin ./server/bin
COPY --from=build /app/server/dist ./server/dist
COPY --from=build /app/server/drizzle ./server/drizzle
COPY --from=build /app/server/config ./server/config
COPY --from=build /app/server/data ./server/data
# The site and the CDN bundles, served from here (the server's default STATIC_ROOT: ../dist of server/).
COPY --from=build /app/dist/site ./dist/site
COPY --from=build /app/dist/cdn ./dist/cdn
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
USER node
EXPOSE 8787
# /healthz: the process is alive (never the HTML fallback). Node's own fetch: the slim image has no curl.
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8787) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM: the server stops taking requests, finishes those in flight and exits within 10 s.
STOPSIGNAL SIGTERM
CMD ["node", "server/dist/main.js"]
