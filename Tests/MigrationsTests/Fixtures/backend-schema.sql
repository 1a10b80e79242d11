-- A stand-in for a Supabase project migrated by the Pulse backend's own 36 migrations, built from
-- the data contract: the same tables and columns, the backend's object names, a few live rows.
-- pulse-ingest must adopt this without creating, dropping or rewriting anything that is here.
DO $$ BEGIN CREATE ROLE anon NOLOGIN; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$;
DO $$ BEGIN CREATE ROLE authenticated NOLOGIN; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$;
DO $$ BEGIN CREATE ROLE service_role NOLOGIN BYPASSRLS; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$;

create table categories (id uuid primary key default gen_random_uuid(), name varchar(100) unique,
  slug varchar(100) unique, display_order int default 0, created_at timestamptz default now());
create table sources (id uuid primary key default gen_random_uuid(), name varchar(255) not null,
  slug varchar(100) unique not null, feed_url text not null, website_url text, logo_url text,
  category_id uuid references categories(id), is_active boolean default true, last_fetched_at timestamptz,
  created_at timestamptz default now(), updated_at timestamptz default now(),
  language varchar(5) not null default 'en', fetch_interval_hours int not null default 2, etag text,
  last_modified text, consecutive_failures int not null default 0, circuit_open_until timestamptz,
  max_content_length int);
create table articles (id uuid primary key default gen_random_uuid(), title text not null, summary text,
  content text, url text not null, url_hash varchar(64) unique not null, image_url text, thumbnail_url text,
  author varchar(255), source_id uuid references sources(id) on delete cascade,
  category_id uuid references categories(id), published_at timestamptz not null,
  created_at timestamptz default now(), media_type varchar(20), media_url text, media_duration int,
  media_mime_type varchar(50), language varchar(5) not null default 'en', source_name varchar(255),
  source_slug varchar(100), category_name varchar(100), category_slug varchar(100),
  image_backfill_attempts int not null default 0, image_backfill_last_attempt_at timestamptz,
  content_backfill_attempts int not null default 0, content_backfill_last_attempt_at timestamptz,
  search_vector tsvector generated always as (setweight(to_tsvector('english', coalesce(title, '')), 'A')
    || setweight(to_tsvector('english', coalesce(summary, '')), 'B')) stored);
create table fetch_logs (id uuid primary key default gen_random_uuid(), started_at timestamptz not null default now(),
  completed_at timestamptz, sources_processed int default 0, articles_fetched int default 0,
  articles_inserted int default 0, articles_skipped int default 0, errors jsonb default '[]',
  status varchar(20) default 'running');
create view articles_with_source with (security_invoker = on) as
  select id, title, summary, content, url, image_url, thumbnail_url, author, published_at, created_at,
    language, source_id, category_id, source_name, source_slug, category_name, category_slug, media_type,
    media_url, media_duration, media_mime_type, search_vector from articles;
create view source_health with (security_invoker = on) as
  select s.id, s.name, s.slug, s.is_active, s.consecutive_failures, s.circuit_open_until,
    s.circuit_open_until > now() as circuit_open, s.last_fetched_at,
    (select max(published_at) from articles a where a.source_id = s.id) as most_recent_article_at,
    (select count(*) from articles a where a.source_id = s.id and a.published_at > now() - interval '24 hours')
      as articles_last_24h from sources s;
alter table categories enable row level security;
alter table sources enable row level security;
alter table articles enable row level security;
alter table fetch_logs enable row level security;
create policy "Public read categories" on categories for select using (true);
create policy "Public read active sources" on sources for select using (is_active = true);
create policy "Public read articles" on articles for select using (true);

-- The backend's RPCs with its signatures (names, argument names, defaults, return types), its
-- caller gate and grants; bodies reduced. Adoption must leave them exactly as they are.
create function search_articles(search_query text, result_limit int default 20, search_language text default null,
  result_offset int default 0) returns setof articles language sql security definer set search_path = ''
  as $$ select * from public.articles where false $$;
create function cleanup_old_articles(days_to_keep int default 30) returns int language plpgsql security definer
  set search_path = '' as $$ begin
    if not (coalesce(nullif(pg_catalog.current_setting('request.jwt.claims', true), '')::jsonb ->> 'role', '') = 'service_role'
            or session_user = 'postgres') then raise exception 'denied'; end if;
    return 0; end $$;
create function prune_old_image_urls(days_to_keep int) returns bigint language plpgsql security definer
  set search_path = '' as $$ begin
    if not (coalesce(nullif(pg_catalog.current_setting('request.jwt.claims', true), '')::jsonb ->> 'role', '') = 'service_role'
            or session_user = 'postgres') then raise exception 'denied'; end if;
    return 0; end $$;
create function prune_old_content(days_to_keep int) returns bigint language plpgsql security definer
  set search_path = '' as $$ begin
    if not (coalesce(nullif(pg_catalog.current_setting('request.jwt.claims', true), '')::jsonb ->> 'role', '') = 'service_role'
            or session_user = 'postgres') then raise exception 'denied'; end if;
    return 0; end $$;
create function batch_update_article_images(updates jsonb) returns int language plpgsql security definer
  set search_path = '' as $$ begin
    if not (coalesce(nullif(pg_catalog.current_setting('request.jwt.claims', true), '')::jsonb ->> 'role', '') = 'service_role'
            or session_user = 'postgres') then raise exception 'denied'; end if;
    return 0; end $$;
create function batch_update_article_content(updates jsonb) returns int language plpgsql security definer
  set search_path = '' as $$ begin
    if not (coalesce(nullif(pg_catalog.current_setting('request.jwt.claims', true), '')::jsonb ->> 'role', '') = 'service_role'
            or session_user = 'postgres') then raise exception 'denied'; end if;
    return 0; end $$;
create function bump_backfill_attempts(url_hashes text[], kind text) returns int language plpgsql security definer
  set search_path = '' as $$ begin
    if not (coalesce(nullif(pg_catalog.current_setting('request.jwt.claims', true), '')::jsonb ->> 'role', '') = 'service_role'
            or session_user = 'postgres') then raise exception 'denied'; end if;
    return 0; end $$;
create function batch_update_source_fetch_state(updates jsonb) returns int language plpgsql security definer
  set search_path = '' as $$ begin
    if not (coalesce(nullif(pg_catalog.current_setting('request.jwt.claims', true), '')::jsonb ->> 'role', '') = 'service_role'
            or session_user = 'postgres') then raise exception 'denied'; end if;
    return 0; end $$;
create function get_db_size_bytes() returns bigint language sql stable set search_path = ''
  as $$ select 0::bigint /* backend fixture */ $$;
revoke all on function search_articles(text, int, text, int), cleanup_old_articles(int), prune_old_image_urls(int),
  prune_old_content(int), batch_update_article_images(jsonb), batch_update_article_content(jsonb),
  bump_backfill_attempts(text[], text), batch_update_source_fetch_state(jsonb), get_db_size_bytes()
  from public, anon, authenticated;
grant execute on function search_articles(text, int, text, int) to anon, authenticated, service_role;
grant execute on function cleanup_old_articles(int), prune_old_image_urls(int), prune_old_content(int),
  batch_update_article_images(jsonb), batch_update_article_content(jsonb), bump_backfill_attempts(text[], text),
  batch_update_source_fetch_state(jsonb), get_db_size_bytes() to service_role;

-- The backend's grants: column lists for the API roles, nothing on fetch_logs or source_health.
grant usage on schema public to anon, authenticated, service_role;
grant select on categories to anon, authenticated;
grant select (id, name, slug, website_url, logo_url, category_id, language, is_active) on sources to anon, authenticated;
grant select (id, title, summary, content, url, image_url, thumbnail_url, author, published_at, created_at, language,
  source_id, category_id, source_name, source_slug, category_name, category_slug, media_type, media_url,
  media_duration, media_mime_type, search_vector) on articles to anon, authenticated;
grant select on articles_with_source to anon, authenticated, service_role;
grant all on categories, sources, articles, fetch_logs, source_health to service_role;
create index idx_articles_search on articles using gin (search_vector);

insert into categories (name, slug, display_order) values ('World', 'world', 1), ('Technology', 'technology', 2),
  ('Business', 'business', 3), ('Sports', 'sports', 4), ('Entertainment', 'entertainment', 5),
  ('Science', 'science', 6), ('Health', 'health', 7), ('Politics', 'politics', 8), ('Podcasts', 'podcasts', 9),
  ('Videos', 'videos', 10);
insert into sources (name, slug, feed_url, category_id, language)
  select 'Guardian World', 'guardian-world', 'https://www.theguardian.com/world/rss', id, 'en' from categories where slug = 'world';
insert into sources (name, slug, feed_url, category_id, language)
  select 'Folha Tec', 'folha-tec', 'https://feeds.folha.uol.com.br/tec/rss091.xml', id, 'pt' from categories where slug = 'technology';
insert into articles (title, url, url_hash, source_id, category_id, published_at, language, source_slug, category_slug)
  select 'Story ' || n, 'https://example.com/' || n, md5(n::text) || md5(n::text), s.id, s.category_id,
         now() - n * interval '1 hour', s.language, s.slug, 'world'
  from generate_series(1, 3) n, sources s where s.slug = 'guardian-world';
insert into fetch_logs (status, completed_at) values ('completed', now());
