/** A conversation-like message text for the ledger benches: 60–260 bytes, one in five multi-line. */
export const benchText = (i: number): string => `message ${i}: ${'lorem ipsum dolor sit amet '.repeat(2 + (i % 9))}${i % 5 === 0 ? '\nsecond line\n' : ''}`;
