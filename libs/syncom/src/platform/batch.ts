/**
 * Run `work` over indexes 0..count-1, started in order, at most `concurrency`
 * at a time (SIG-27, SIG-28: 64 signature checks of a page in flight): each
 * runner takes the next index as one of its own settles.
 */
export async function runLimited<T>(count: number, concurrency: number, work: (i: number) => Promise<T> | T): Promise<T[]> {
  const limit = Math.max(1, Math.floor(concurrency)) || 64;
  const out = new Array<T>(count);
  let next = 0;
  const runner = async (): Promise<void> => {
    while (next < count) {
      const i = next++;
      out[i] = await work(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, runner));
  return out;
}
