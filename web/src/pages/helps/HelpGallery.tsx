import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Flex, Heading, Loader, Text } from '@aws-amplify/ui-react';
import { helpEmbedUrl, helpThumbnailUrl, type ApiHelp } from '@balcao/shared';
import { useQuery } from '@tanstack/react-query';
import { HELPS_KEY, helpsApi } from '../../api/helps';
import { Modal } from '../../ui/Modal';
import { useErrorToast } from '../../ui/useLiveQuery';
import './helps.css';

/**
 * The help-video gallery (spec 002 §2), for every signed-in user: the count in the title, a card per
 * video, and a modal player (Escape closes it: the native dialog's cancel). Texts are rendered as
 * text, never as markup.
 */
export default function HelpGallery() {
  const { t } = useTranslation();
  const query = useQuery({ queryKey: HELPS_KEY, queryFn: helpsApi.all });
  useErrorToast(query.error);
  const helps = query.data ?? [];
  const [playing, setPlaying] = useState<ApiHelp | null>(null);

  return (
    <Flex direction="column" gap="1rem" className="page">
      <Heading level={3}>{t('helps.galleryTitle', { count: helps.length })}</Heading>
      {query.isLoading && <Loader variation="linear" />}
      {!query.isLoading && helps.length === 0 && <Text color="font.secondary">{t('helps.empty')}</Text>}
      <div className="help-grid">
        {helps.map((h) => (
          <button key={h.id} type="button" className="help-card" data-testid={`help-card-${h.id}`} onClick={() => setPlaying(h)} aria-label={t('helps.play', { title: h.title })}>
            <HelpThumbnail video={h.video} />
            <span className="help-card-body">
              <span className="help-card-title">{h.title}</span>
              {h.description && <span className="help-card-text">{h.description}</span>}
            </span>
          </button>
        ))}
      </div>
      <Modal open={!!playing} title={playing?.title ?? ''} onClose={() => setPlaying(null)} wide>
        {playing && (
          <Flex direction="column" gap="0.75rem">
            <div className="help-player">
              <iframe
                src={helpEmbedUrl(playing.video)}
                title={playing.title}
                allow="accelerometer; autoplay; clipboard-write; encrypted-media; gyroscope; picture-in-picture; web-share"
                // YouTube's player needs the page's origin to play; nothing more of the address leaves.
                referrerPolicy="strict-origin-when-cross-origin"
                allowFullScreen
              />
            </div>
            {playing.description && <p className="help-player-text">{playing.description}</p>}
            <Flex justifyContent="flex-end">
              <Button onClick={() => setPlaying(null)}>{t('common.close')}</Button>
            </Flex>
          </Flex>
        )}
      </Modal>
    </Flex>
  );
}

/** YouTube's picture of the video; without it (offline, removed video) a plain play mark. */
function HelpThumbnail({ video }: { video: string }) {
  const [failed, setFailed] = useState(false);
  return (
    <span className="help-thumb">
      {!failed && <img src={helpThumbnailUrl(video)} alt="" loading="lazy" onError={() => setFailed(true)} />}
      <span className="help-play" aria-hidden="true">
        ▶
      </span>
    </span>
  );
}
