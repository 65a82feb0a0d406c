export function profileWindow(msg: { on?: boolean; file?: string }): Promise<void>;
