/**
 * The bench's traffic mix (bench/run.ts casinoEvent) for the batch
 * micro-benchmarks: the i-th event over `players` players — deposits, bets,
 * settlements and sessions.
 */
export function casinoEvent(i: number, players: number): Record<string, unknown> {
  const participant = `bench-${i % players}`;
  const id = `micro-${i}`;
  const games = ["video-slots", "live-casino", "crash", "roulette", "fast-games"];
  const game_type = games[i % games.length];
  switch (i % 10) {
    case 0:
      return { participant, type: "deposit.confirmed", id, amount: 20 + (i % 7) * 15, meta: { method: "pix" } };
    case 1:
    case 2:
    case 3:
    case 4:
    case 5:
      return { participant, type: "bet.placed", id, amount: `${1 + (i % 50)}.50`, meta: { game_id: `game-${i % 40}`, game_type } };
    case 6:
    case 7:
    case 8:
      return { participant, type: "bet.settled", id, amount: i % 3 === 0 ? 0 : 4 + (i % 30), meta: { game_type, ...(i % 3 === 0 ? { outcome: "lost" } : {}) } };
    default:
      return { participant, type: "session.started", id };
  }
}
