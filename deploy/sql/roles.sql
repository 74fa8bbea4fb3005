-- The two database roles of the Links and Clients API (see docs/operations.md):
--   links_clients_owner  owns the schema; migrations and `npm run keys` run as this role.
--   links_clients_api    the API's login: reads links, clients, api_keys and api_key_links, writes only
--                        api_keys.last_used_at, and learns when the oldest writer started.
-- Run with psql as an administrator, connected to the API's database, before the first
-- migration (it creates the roles) and again after migrations (it grants on the tables they
-- created). It is idempotent; a password is needed only to create a role or to change it:
--   psql "postgres://admin@db.example.com/links_clients?sslmode=verify-full&sslrootcert=ca.pem" \
--     -v owner_password="$OWNER_PASSWORD" -v api_password="$API_PASSWORD" -f deploy/sql/roles.sql
-- Optional: -v owner_role=… -v api_role=… (other names), -v statement_timeout=… (default 5s),
-- -v idle_timeout=… (default 1min), -v connection_limit=… (default 150),
-- -v connect_roles=writer1,writer2 (roles that still connect once PUBLIC may not).
\set ON_ERROR_STOP on
\if :{?owner_role}
\else
\set owner_role links_clients_owner
\endif
\if :{?api_role}
\else
\set api_role links_clients_api
\endif
\if :{?owner_password}
\else
\set owner_password ''
\endif
\if :{?api_password}
\else
\set api_password ''
\endif
\if :{?statement_timeout}
\else
\set statement_timeout 5s
\endif
\if :{?idle_timeout}
\else
\set idle_timeout 1min
\endif
\if :{?connection_limit}
\else
\set connection_limit 150
\endif
\if :{?connect_roles}
\else
\set connect_roles ''
\endif

-- No password in this file: a missing role is created only with the one given on the command
-- line, and an existing role keeps its password unless a new one is given (rotation).
SELECT format(
         CASE
           WHEN NOT EXISTS (SELECT FROM pg_roles WHERE rolname = r.name) AND r.password = ''
             THEN 'DO $$ BEGIN RAISE EXCEPTION %3$L; END $$'
           WHEN NOT EXISTS (SELECT FROM pg_roles WHERE rolname = r.name)
             THEN 'CREATE ROLE %1$I LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD %2$L'
           WHEN r.password <> '' THEN 'ALTER ROLE %1$I PASSWORD %2$L'
         END,
         r.name, r.password, format('role %s does not exist: give -v %s=…', r.name, r.variable))
FROM (VALUES (:'owner_role', :'owner_password', 'owner_password'),
             (:'api_role', :'api_password', 'api_password')) AS r (name, password, variable)
\gexec

-- The administrator running this too, should it have connected through PUBLIC.
GRANT CONNECT ON DATABASE :"DBNAME" TO :"owner_role", :"api_role", CURRENT_USER;
-- Only the roles named connect, and none makes temporary tables (one named like a feed's table,
-- written in a transaction left open, could hold the feeds back before they matched by OID).
SELECT format('GRANT CONNECT ON DATABASE %I TO %I', :'DBNAME', trim(r))
FROM unnest(string_to_array(:'connect_roles', ',')) AS r WHERE trim(r) <> ''
\gexec
REVOKE CONNECT, TEMPORARY ON DATABASE :"DBNAME" FROM PUBLIC;
-- PostgreSQL 14 and older let every role create objects in public; 15 already does not.
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
GRANT USAGE, CREATE ON SCHEMA public TO :"owner_role";
GRANT USAGE ON SCHEMA public TO :"api_role";
-- Change feeds find their safe point among other sessions in pg_stat_activity through
-- oldest_writer_start(), which runs with the owner's rights: the API learns the oldest writer's
-- start and nothing else. (Earlier releases granted pg_read_all_stats to the API's role, which
-- let it read every session's SQL text.)
GRANT pg_read_all_stats TO :"owner_role";
SELECT format('REVOKE pg_read_all_stats FROM %I', :'api_role')
FROM pg_auth_members
WHERE roleid = 'pg_read_all_stats'::regrole AND member = to_regrole(:'api_role')
\gexec
SELECT format('DO $$ BEGIN RAISE WARNING %L; END $$',
              format('%s still has pg_read_all_stats through another role (pg_monitor?): revoke that',
                     :'api_role'))
WHERE pg_has_role(:'api_role', 'pg_read_all_stats', 'USAGE')
\gexec
-- Behind a pooler that drops startup parameters, this holds what the API asks for at connect.
ALTER ROLE :"api_role" SET statement_timeout = :'statement_timeout';
-- A session left idle in a transaction is ended, and the API's pods cannot take every
-- connection of the server (10 replicas at most, about 12 connections each, plus a rollout).
ALTER ROLE :"api_role" SET idle_in_transaction_session_timeout = :'idle_timeout';
ALTER ROLE :"api_role" CONNECTION LIMIT :connection_limit;
-- Earlier releases set plan_cache_mode here; the API now chooses which statements keep a plan.
ALTER ROLE :"api_role" RESET plan_cache_mode;

-- Table privileges, once the migrations have made the tables, granted as their owner (an
-- administrator that is not a superuser needs membership of the owner role for that).
GRANT :"owner_role" TO CURRENT_USER;
SET ROLE :"owner_role";
SELECT format('GRANT SELECT ON public.%I TO %I', t, :'api_role')
FROM unnest(ARRAY['links', 'clients', 'api_keys', 'api_key_links']) AS t
WHERE to_regclass(format('public.%I', t)) IS NOT NULL
\gexec
-- The write-behind of a key's last use, and no other column: a revoked key stays revoked.
SELECT format('GRANT UPDATE (last_used_at) ON public.api_keys TO %I', :'api_role')
WHERE to_regclass('public.api_keys') IS NOT NULL
\gexec
SELECT format('GRANT EXECUTE ON FUNCTION public.oldest_writer_start() TO %I', :'api_role')
WHERE to_regprocedure('public.oldest_writer_start()') IS NOT NULL
\gexec
RESET ROLE;
