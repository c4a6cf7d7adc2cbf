// A function's answers remembered, for work asked again and again with the same few keys (a text's words).

/**
 * `compute` with its answers kept for up to about `max` keys; past that they are all forgotten at once, the cheapest
 * bound that keeps the common keys cheap. `compute` must not return undefined.
 */
export function memoized<K, V extends string | number | boolean | object | null>(compute: (key: K) => V, max: number): (key: K) => V {
  const known = new Map<K, V>();
  return (key) => {
    let value = known.get(key);
    if (value === undefined) {
      value = compute(key);
      if (known.size > max) known.clear();
      known.set(key, value);
    }
    return value;
  };
}
