import json, urllib.request, sys
base = sys.argv[1]
def get(p): return json.load(urllib.request.urlopen(base + p))
arr = get('/api/sessions')['arrivals']
rows = []
for a in arr:
    d = get('/api/sessions/' + a['hash'])
    for st in d['steps']:
        if st['cachedTokens'] >= 0 and st['status'] == 200:
            rows.append((st['expectedCachedTokens'], st['cachedTokens'], st['promptTokens'], st['expectedFrom']))
ev = [r for r in rows if r[3] == 'events']
def rel(r): return abs(r[0]-r[1]) / max(1, r[2])
print('steps', len(rows), 'with events', len(ev), 'estimated', len(rows)-len(ev))
for name, sel in (('events', ev), ('all', rows)):
    if not sel: continue
    errs = sorted(rel(r) for r in sel)
    w5 = sum(1 for e in errs if e <= 0.05)
    q = lambda p: errs[min(len(errs)-1, int(p*len(errs)))]
    print(name, 'within 5%% of prompt: %d/%d = %.1f%%' % (w5, len(errs), 100*w5/len(errs)), 'p50 %.4f p90 %.4f p95 %.4f max %.4f' % (q(.5), q(.9), q(.95), errs[-1]))
    # also relative to cached tokens
    errs2 = sorted(abs(r[0]-r[1]) / max(1, r[1]) for r in sel if r[1] > 0)
    if errs2:
        w = sum(1 for e in errs2 if e <= 0.05)
        print(name, 'within 5%% of reported cached_tokens (steps with hits): %d/%d = %.1f%%' % (w, len(errs2), 100*w/len(errs2)))
bad = [r for r in ev if rel(r) > 0.05]
for r in bad[:20]: print('  miss', r)
