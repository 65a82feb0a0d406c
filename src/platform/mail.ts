import fs from 'node:fs/promises';
import path from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Config } from './config.js';
import type { Logger } from './logger.js';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  /** Extra header fields (e.g. List-Unsubscribe and List-Unsubscribe-Post of the notification digest, RFC 8058). */
  headers?: Record<string, string>;
}

/**
 * Mail delivery: SMTP when SMTP_URL is set; otherwise each mail is logged and written to
 * DATA_DIR/outbox as JSON, so a developer can read the password-reset code without a mail server.
 */
export interface Mailer {
  send(mail: Mail): Promise<void>;
  close(): void;
}

export function createMailer(config: Config, log: Logger): Mailer {
  if (config.SMTP_URL) {
    const transport: Transporter = nodemailer.createTransport(config.SMTP_URL);
    return {
      async send(mail) {
        await transport.sendMail({ from: config.MAIL_FROM, ...mail });
      },
      close: () => transport.close(),
    };
  }
  const outbox = path.join(config.dataDir, 'outbox');
  return {
    async send(mail) {
      await fs.mkdir(outbox, { recursive: true });
      const file = path.join(outbox, `${new Date().toISOString().replace(/[:.]/g, '-')}-${Math.random().toString(36).slice(2, 8)}.json`);
      await fs.writeFile(file, JSON.stringify({ from: config.MAIL_FROM, ...mail }, null, 2));
      log.info({ to: mail.to, subject: mail.subject, file }, 'mail written to the dev outbox (SMTP_URL is not set)');
    },
    close: () => undefined,
  };
}
