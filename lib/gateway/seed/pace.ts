/** A pause the seed takes between its steps (see SeedOptions.pace). */
export type Pace = () => Promise<void>;

export const noPause: Pace = () => Promise.resolve();
