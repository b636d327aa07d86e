-- An entry in `entry_scope` is visible from context `ctx` when its scope is ctx or an
-- ancestor of it, segment-wise ("" is global and visible everywhere).
CREATE OR REPLACE MACRO visible(entry_scope, ctx) AS
    entry_scope = '' OR ctx = entry_scope OR starts_with(ctx, entry_scope || '/')
