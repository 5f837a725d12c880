import mpmath as mp
mp.mp.dps = 80
def fitq(f, deg, q):
    c = mp.chebyfit(f, [0, 1], deg + 1)          # highest degree first
    return [int(mp.nint(x * 2**q)) for x in c]
hs = lambda u: mp.sin(mp.pi/2*mp.sqrt(u))/mp.sqrt(u) if u != 0 else mp.pi/2
ha = lambda u: (2/mp.pi)*mp.atan(mp.sqrt(u))/mp.sqrt(u) if u != 0 else 2/mp.pi
S = fitq(hs, 4, 30); A = fitq(ha, 11, 32)
print('sin Q30', S); print('atan Q32', A)
# partial Horner sums of atan poly bounded?
mx = 0
for i in range(0, 1001):
    u = mp.mpf(i)/1000; p = mp.mpf(0)
    for c in A:
        p = p*u + mp.mpf(c)/2**32; mx = max(mx, abs(p))
print('atan max partial', float(mx))
mx = 0
for i in range(0, 1001):
    u = mp.mpf(i)/1000; p = mp.mpf(0)
    for c in S:
        p = p*u + mp.mpf(c)/2**30; mx = max(mx, abs(p))
print('sin max partial', float(mx))
def q96(x):
    i = int(mp.floor(x)); f = int(mp.floor((x - i) * 2**96))
    return i, (f >> 64) & 0xFFFFFFFF, (f >> 32) & 0xFFFFFFFF, f & 0xFFFFFFFF
def q128frac(x):
    i = int(mp.floor(x)); f = int(mp.floor((x - i) * 2**128)); return i, f >> 64, f & (2**64-1)
K = 2**15 / mp.pi; M = mp.pi / 2**15
print('K q96', [hex(v) for v in q96(K)]); print('M q96', [hex(v) for v in q96(M)])
print('K q128', [hex(v) for v in q128frac(K)]); print('M q128', [hex(v) for v in q128frac(M)])
# best rational approximations: min ||qX|| for q <= 2^32 is attained at a convergent denominator
def cf_check(x, Q):
    h0, h1, k0, k1 = 0, 1, 1, 0; y = x; best = None
    while True:
        a = int(mp.floor(y)); h0, h1 = h1, a*h1 + h0; k0, k1 = k1, a*k1 + k0
        if k1 > Q: break
        d = abs(k1*x - h1)
        best = d if best is None or d < best else best
        y = 1/(y - a)
    return best
for name, x in (('K', K), ('M', M)):
    b = cf_check(x, 2**32); print(name, 'min ||qX|| q<=2^32 =', mp.nstr(b, 5), 'log2', float(mp.log(b, 2)))
