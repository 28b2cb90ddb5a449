# One image for both roles: the console (default) and the standalone gateway (`npm run gateway`).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

FROM node:20-bookworm-slim
# Production: an empty store stays empty (no demo organization) unless STRATUS_SEED_DEMO=1.
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app /app
# The server refuses to start as root only where it matters (PostgreSQL); still, run unprivileged.
RUN useradd --system --uid 10001 stratus && mkdir -p /data && chown stratus /data
USER stratus
ENV STRATUS_DATA_DIR=/data PORT=8080
EXPOSE 3000 8080
HEALTHCHECK --interval=10s --timeout=3s CMD node -e "fetch('http://127.0.0.1:'+(process.env.HEALTH_PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
CMD ["npx", "next", "start", "-p", "3000"]
