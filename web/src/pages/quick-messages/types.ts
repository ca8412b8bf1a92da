/** A quick reply as `GET /quick-messages` answers it. */
export interface QuickMessage {
  id: number;
  userId: number;
  shortcode: string;
  message: string;
  geral: boolean;
  status: boolean;
  isMedia: boolean;
  mediaPath: string | null;
  mediaName: string | null;
  mediaUrl: string | null;
  updatedAt?: string;
}
