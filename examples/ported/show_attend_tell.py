"""sgrvinod's "a PyTorch Tutorial to Image Captioning" (Show, Attend and Tell: ``models.py``,
``train.py``'s ``train``/``validate``, ``utils.py``'s helpers and ``caption.py``'s beam search), ported
to minigrad_ckpt by a mechanical rename.

    python examples/ported/show_attend_tell.py
    python examples/ported/show_attend_tell.py --double --dropout 0 --fine-tune-encoder

An encoder's feature map (``permute``d to channels-last, flattened to pixels) is attended by an
``LSTMCell`` decoder, one word per step, over a batch sorted by decreasing caption length that
*shrinks* as captions end (``h[:batch_size_t]``), each step's scores written into preallocated
``predictions[:batch_size_t, t, :]``; the padded steps are dropped by ``pack_padded_sequence(...)``;
the loss adds the "doubly stochastic" attention penalty ``((1 - alphas.sum(dim=1)) ** 2).mean()``;
gradients are clipped by value through ``param.grad.data.clamp_``; Adam over
``filter(lambda p: p.requires_grad, ...)``, the learning rate shrunk through ``param_groups``.
The beam search keeps ``k`` hypotheses, ranks ``scores.view(-1).topk(k)`` of the flattened
(beam, word) scores and splits each index into a beam and a word.

Made small: 32x32 NumPy images of a bright square whose colour and place decide a "caption" of 3 to 6
words over a vocabulary of 12; the encoder's ResNet-101 is a small conv net written out with the same children layout; sizes of
16.  The lines that differ from the original are listed in ``README.md``.
"""

import argparse
import time

import numpy as np

import minigrad_ckpt as mg
from minigrad_ckpt import nn
import minigrad_ckpt.nn.functional as F
from minigrad_ckpt.nn.utils.rnn import pack_padded_sequence

device = mg.device("cuda" if mg.cuda.is_available() else "cpu")


class Encoder(nn.Module):
    """
    Encoder.
    """

    def __init__(self, encoded_image_size=4):
        super(Encoder, self).__init__()
        self.enc_image_size = encoded_image_size

        resnet = small_resnet()  # not pretrained: the test hook gives the weights

        # Remove linear and pool layers (since we're not doing classification)
        modules = list(resnet.children())[:-2]
        self.resnet = nn.Sequential(*modules)

        # Resize image to fixed size to allow input images of variable size
        self.adaptive_pool = nn.AdaptiveAvgPool2d((encoded_image_size, encoded_image_size))

        self.fine_tune()

    def forward(self, images):
        out = self.resnet(images)  # (batch_size, 16, image_size/4, image_size/4)
        out = self.adaptive_pool(out)  # (batch_size, 16, encoded_image_size, encoded_image_size)
        out = out.permute(0, 2, 3, 1)  # (batch_size, encoded_image_size, encoded_image_size, 16)
        return out

    def fine_tune(self, fine_tune=True):
        for p in self.resnet.parameters():
            p.requires_grad = False
        # If fine-tuning, only fine-tune convolutional blocks 2 through 4
        for c in list(self.resnet.children())[5:]:
            for p in c.parameters():
                p.requires_grad = fine_tune


def small_resnet():
    """ResNet-101's children in its order (conv1, bn1, relu, maxpool, layer1..4, avgpool, fc), each small."""
    def block(cin, cout):
        return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))
    return nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(inplace=True),
                         nn.MaxPool2d(kernel_size=3, stride=2, padding=1),
                         block(8, 8), block(8, 12), block(12, 12), block(12, 16),
                         nn.AdaptiveAvgPool2d((1, 1)), nn.Linear(16, 10))


class Attention(nn.Module):
    """
    Attention Network.
    """

    def __init__(self, encoder_dim, decoder_dim, attention_dim):
        super(Attention, self).__init__()
        self.encoder_att = nn.Linear(encoder_dim, attention_dim)  # linear layer to transform encoded image
        self.decoder_att = nn.Linear(decoder_dim, attention_dim)  # linear layer to transform decoder's output
        self.full_att = nn.Linear(attention_dim, 1)  # linear layer to calculate values to be softmax-ed
        self.relu = nn.ReLU()
        self.softmax = nn.Softmax(dim=1)  # softmax layer to calculate weights

    def forward(self, encoder_out, decoder_hidden):
        att1 = self.encoder_att(encoder_out)  # (batch_size, num_pixels, attention_dim)
        att2 = self.decoder_att(decoder_hidden)  # (batch_size, attention_dim)
        att = self.full_att(self.relu(att1 + att2.unsqueeze(1))).squeeze(2)  # (batch_size, num_pixels)
        alpha = self.softmax(att)  # (batch_size, num_pixels)
        attention_weighted_encoding = (encoder_out * alpha.unsqueeze(2)).sum(dim=1)  # (batch_size, encoder_dim)

        return attention_weighted_encoding, alpha


class DecoderWithAttention(nn.Module):
    """
    Decoder.
    """

    def __init__(self, attention_dim, embed_dim, decoder_dim, vocab_size, encoder_dim=2048, dropout=0.5):
        super(DecoderWithAttention, self).__init__()

        self.encoder_dim = encoder_dim
        self.attention_dim = attention_dim
        self.embed_dim = embed_dim
        self.decoder_dim = decoder_dim
        self.vocab_size = vocab_size
        self.dropout = dropout

        self.attention = Attention(encoder_dim, decoder_dim, attention_dim)  # attention network

        self.embedding = nn.Embedding(vocab_size, embed_dim)  # embedding layer
        self.dropout = nn.Dropout(p=self.dropout)
        self.decode_step = nn.LSTMCell(embed_dim + encoder_dim, decoder_dim, bias=True)  # decoding LSTMCell
        self.init_h = nn.Linear(encoder_dim, decoder_dim)  # linear layer to find initial hidden state of LSTMCell
        self.init_c = nn.Linear(encoder_dim, decoder_dim)  # linear layer to find initial cell state of LSTMCell
        self.f_beta = nn.Linear(decoder_dim, encoder_dim)  # linear layer to create a sigmoid-activated gate
        self.sigmoid = nn.Sigmoid()
        self.fc = nn.Linear(decoder_dim, vocab_size)  # linear layer to find scores over vocabulary
        self.init_weights()  # initialize some layers with the uniform distribution

    def init_weights(self):
        self.embedding.weight.data.uniform_(-0.1, 0.1)
        self.fc.bias.data.fill_(0)
        self.fc.weight.data.uniform_(-0.1, 0.1)

    def fine_tune_embeddings(self, fine_tune=True):
        for p in self.embedding.parameters():
            p.requires_grad = fine_tune

    def init_hidden_state(self, encoder_out):
        mean_encoder_out = encoder_out.mean(dim=1)
        h = self.init_h(mean_encoder_out)  # (batch_size, decoder_dim)
        c = self.init_c(mean_encoder_out)
        return h, c

    def forward(self, encoder_out, encoded_captions, caption_lengths):
        batch_size = encoder_out.size(0)
        encoder_dim = encoder_out.size(-1)
        vocab_size = self.vocab_size

        # Flatten image
        encoder_out = encoder_out.view(batch_size, -1, encoder_dim)  # (batch_size, num_pixels, encoder_dim)
        num_pixels = encoder_out.size(1)

        # Sort input data by decreasing lengths; why? apparent below
        caption_lengths, sort_ind = caption_lengths.squeeze(1).sort(dim=0, descending=True)
        encoder_out = encoder_out[sort_ind]
        encoded_captions = encoded_captions[sort_ind]

        # Embedding
        embeddings = self.embedding(encoded_captions)  # (batch_size, max_caption_length, embed_dim)

        # Initialize LSTM state
        h, c = self.init_hidden_state(encoder_out)  # (batch_size, decoder_dim)

        # We won't decode at the <end> position, since we've finished generating as soon as we generate <end>
        # So, decoding lengths are actual lengths - 1
        decode_lengths = (caption_lengths - 1).tolist()

        # Create tensors to hold word predicion scores and alphas
        predictions = mg.zeros(batch_size, max(decode_lengths), vocab_size).to(device)
        alphas = mg.zeros(batch_size, max(decode_lengths), num_pixels).to(device)
        predictions, alphas = predictions.to(encoder_out.dtype), alphas.to(encoder_out.dtype)

        for t in range(max(decode_lengths)):
            batch_size_t = sum([l > t for l in decode_lengths])  # noqa: E741  (the original's name)
            attention_weighted_encoding, alpha = self.attention(encoder_out[:batch_size_t],
                                                                h[:batch_size_t])
            gate = self.sigmoid(self.f_beta(h[:batch_size_t]))  # gating scalar, (batch_size_t, encoder_dim)
            attention_weighted_encoding = gate * attention_weighted_encoding
            h, c = self.decode_step(
                mg.cat([embeddings[:batch_size_t, t, :], attention_weighted_encoding], dim=1),
                (h[:batch_size_t], c[:batch_size_t]))  # (batch_size_t, decoder_dim)
            preds = self.fc(self.dropout(h))  # (batch_size_t, vocab_size)
            predictions[:batch_size_t, t, :] = preds
            alphas[:batch_size_t, t, :] = alpha

        return predictions, encoded_captions, decode_lengths, alphas, sort_ind


# ---- utils.py

def clip_gradient(optimizer, grad_clip):
    for group in optimizer.param_groups:
        for param in group['params']:
            if param.grad is not None:
                param.grad.data.clamp_(-grad_clip, grad_clip)


class AverageMeter(object):
    def __init__(self):
        self.reset()

    def reset(self):
        self.val = 0
        self.avg = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def adjust_learning_rate(optimizer, shrink_factor):
    print("\nDECAYING learning rate.")
    for param_group in optimizer.param_groups:
        param_group['lr'] = param_group['lr'] * shrink_factor
    print("The new learning rate is %f\n" % (optimizer.param_groups[0]['lr'],))


def accuracy(scores, targets, k):
    batch_size = targets.size(0)
    _, ind = scores.topk(k, 1, True, True)
    correct = ind.eq(targets.view(-1, 1).expand_as(ind))
    correct_total = correct.view(-1).float().sum()  # 0D tensor
    return correct_total.item() * (100.0 / batch_size)


# ---- train.py

alpha_c = 1.  # regularization parameter for 'doubly stochastic attention', as in the paper
grad_clip = 0.05  # clip gradients at an absolute value of (5.: none would bind at this size)
print_freq = 1


def train(train_loader, encoder, decoder, criterion, encoder_optimizer, decoder_optimizer, epoch, history):
    decoder.train()  # train mode (dropout and batchnorm is used)
    encoder.train()

    batch_time = AverageMeter()  # forward prop. + back prop. time
    losses = AverageMeter()  # loss (per word decoded)
    top5accs = AverageMeter()  # top5 accuracy

    start = time.time()

    for i, (imgs, caps, caplens) in enumerate(train_loader):
        imgs = imgs.to(device)
        caps = caps.to(device)
        caplens = caplens.to(device)

        imgs = encoder(imgs)
        scores, caps_sorted, decode_lengths, alphas, sort_ind = decoder(imgs, caps, caplens)

        # Since we decoded starting with <start>, the targets are all words after <start>, up to <end>
        targets = caps_sorted[:, 1:]

        # Remove timesteps that we didn't decode at, or are pads
        scores = pack_padded_sequence(scores, decode_lengths, batch_first=True).data
        targets = pack_padded_sequence(targets, decode_lengths, batch_first=True).data

        loss = criterion(scores, targets)

        # Add doubly stochastic attention regularization
        loss += alpha_c * ((1. - alphas.sum(dim=1)) ** 2).mean()

        decoder_optimizer.zero_grad()
        if encoder_optimizer is not None:
            encoder_optimizer.zero_grad()
        loss.backward()

        if grad_clip is not None:
            clip_gradient(decoder_optimizer, grad_clip)
            if encoder_optimizer is not None:
                clip_gradient(encoder_optimizer, grad_clip)

        decoder_optimizer.step()
        if encoder_optimizer is not None:
            encoder_optimizer.step()

        top5 = accuracy(scores, targets, 5)
        losses.update(loss.item(), sum(decode_lengths))
        top5accs.update(top5, sum(decode_lengths))
        batch_time.update(time.time() - start)
        history += [loss.item(), top5, losses.avg, top5accs.avg]

        start = time.time()

        if i % print_freq == 0:
            print('Epoch: [{0}][{1}/{2}]\t'
                  'Loss {loss.val:.4f} ({loss.avg:.4f})\t'
                  'Top-5 Accuracy {top5.val:.3f} ({top5.avg:.3f})'.format(epoch, i, len(train_loader),
                                                                          loss=losses, top5=top5accs))


def validate(val_loader, encoder, decoder, criterion, history):
    decoder.eval()  # eval mode (no dropout or batchnorm)
    if encoder is not None:
        encoder.eval()

    losses = AverageMeter()
    top5accs = AverageMeter()
    references = list()  # references (true captions) for calculating BLEU-4 score
    hypotheses = list()  # hypotheses (predictions)

    with mg.no_grad():
        for i, (imgs, caps, caplens, allcaps) in enumerate(val_loader):
            imgs = imgs.to(device)
            caps = caps.to(device)
            caplens = caplens.to(device)

            if encoder is not None:
                imgs = encoder(imgs)
            scores, caps_sorted, decode_lengths, alphas, sort_ind = decoder(imgs, caps, caplens)

            targets = caps_sorted[:, 1:]

            scores_copy = scores.clone()
            scores = pack_padded_sequence(scores, decode_lengths, batch_first=True).data
            targets = pack_padded_sequence(targets, decode_lengths, batch_first=True).data

            loss = criterion(scores, targets)
            loss += alpha_c * ((1. - alphas.sum(dim=1)) ** 2).mean()

            losses.update(loss.item(), sum(decode_lengths))
            top5 = accuracy(scores, targets, 5)
            top5accs.update(top5, sum(decode_lengths))
            history += [loss.item(), top5]

            # References
            allcaps = allcaps[sort_ind]  # because images were sorted in the decoder
            for j in range(allcaps.shape[0]):
                img_caps = allcaps[j].tolist()
                img_captions = list(
                    map(lambda c: [w for w in c if w not in {word_map['<start>'], word_map['<pad>']}],
                        img_caps))  # remove <start> and pads
                references.append(img_captions)

            # Hypotheses
            _, preds = mg.max(scores_copy, dim=2)
            preds = preds.tolist()
            temp_preds = list()
            for j, p in enumerate(preds):
                temp_preds.append(preds[j][:decode_lengths[j]])  # remove pads
            preds = temp_preds
            hypotheses.extend(preds)

            assert len(references) == len(hypotheses)

    # corpus_bleu (nltk) is left out: the hypotheses' words go into the history instead
    for hyp in hypotheses:
        history += hyp
    return losses.avg


# ---- caption.py

def caption_image_beam_search(encoder, decoder, img, word_map, beam_size=3):
    k = beam_size
    vocab_size = len(word_map)

    image = img.unsqueeze(0)  # (1, 3, 32, 32)
    encoder_out = encoder(image)  # (1, enc_image_size, enc_image_size, encoder_dim)
    enc_image_size = encoder_out.size(1)
    encoder_dim = encoder_out.size(3)

    encoder_out = encoder_out.view(1, -1, encoder_dim)  # (1, num_pixels, encoder_dim)
    num_pixels = encoder_out.size(1)

    # We'll treat the problem as having a batch size of k
    encoder_out = encoder_out.expand(k, num_pixels, encoder_dim)  # (k, num_pixels, encoder_dim)

    k_prev_words = mg.LongTensor([[word_map['<start>']]] * k).to(device)  # (k, 1)
    seqs = k_prev_words  # (k, 1)
    top_k_scores = mg.zeros(k, 1).to(device).to(encoder_out.dtype)  # (k, 1)
    seqs_alpha = mg.ones(k, 1, enc_image_size, enc_image_size).to(device)

    complete_seqs = list()
    complete_seqs_alpha = list()
    complete_seqs_scores = list()

    step = 1
    h, c = decoder.init_hidden_state(encoder_out)

    while True:
        embeddings = decoder.embedding(k_prev_words).squeeze(1)  # (s, embed_dim)
        awe, alpha = decoder.attention(encoder_out, h)  # (s, encoder_dim), (s, num_pixels)
        alpha = alpha.view(-1, enc_image_size, enc_image_size)  # (s, enc_image_size, enc_image_size)
        gate = decoder.sigmoid(decoder.f_beta(h))  # gating scalar, (s, encoder_dim)
        awe = gate * awe

        h, c = decoder.decode_step(mg.cat([embeddings, awe], dim=1), (h, c))  # (s, decoder_dim)

        scores = decoder.fc(h)  # (s, vocab_size)
        scores = F.log_softmax(scores, dim=1)
        scores = top_k_scores.expand_as(scores) + scores  # (s, vocab_size)

        # For the first step, all k points will have the same scores (since same k previous words, h, c)
        if step == 1:
            top_k_scores, top_k_words = scores[0].topk(k, 0, True, True)  # (s)
        else:
            top_k_scores, top_k_words = scores.view(-1).topk(k, 0, True, True)  # (s)

        # Convert unrolled indices to actual indices of scores
        prev_word_inds = top_k_words // vocab_size  # (s)  (the original's `/` is true division since PyTorch 1.5)
        next_word_inds = top_k_words % vocab_size  # (s)

        seqs = mg.cat([seqs[prev_word_inds], next_word_inds.unsqueeze(1)], dim=1)  # (s, step+1)
        seqs_alpha = mg.cat([seqs_alpha[prev_word_inds], alpha[prev_word_inds].unsqueeze(1).to(seqs_alpha.dtype)],
                            dim=1)  # (s, step+1, enc_image_size, enc_image_size)

        incomplete_inds = [ind for ind, next_word in enumerate(next_word_inds) if
                           next_word != word_map['<end>']]
        complete_inds = list(set(range(len(next_word_inds))) - set(incomplete_inds))

        if len(complete_inds) > 0:
            complete_seqs.extend(seqs[complete_inds].tolist())
            complete_seqs_alpha.extend(seqs_alpha[complete_inds].tolist())
            complete_seqs_scores.extend(top_k_scores[complete_inds])
        k -= len(complete_inds)  # reduce beam length accordingly

        if k == 0:
            break
        seqs = seqs[incomplete_inds]
        seqs_alpha = seqs_alpha[incomplete_inds]
        h = h[prev_word_inds[incomplete_inds]]
        c = c[prev_word_inds[incomplete_inds]]
        encoder_out = encoder_out[prev_word_inds[incomplete_inds]]
        top_k_scores = top_k_scores[incomplete_inds].unsqueeze(1)
        k_prev_words = next_word_inds[incomplete_inds].unsqueeze(1)

        if step > 50:
            break
        step += 1

    if not complete_seqs_scores:  # no beam reached <end> (the original's index(max([])) fails)
        return [], [], None
    i = complete_seqs_scores.index(max(complete_seqs_scores))
    seq = complete_seqs[i]
    alphas = complete_seqs_alpha[i]

    return seq, alphas, max(complete_seqs_scores).item()


# ---- synthetic data (the original reads COCO captions from HDF5 and JSON files)

word_map = {'<pad>': 0, '<start>': 1, '<end>': 2}
word_map.update({'w%d' % w: w for w in range(3, 12)})
CAPTION_LEN = 8  # <start>, at most 6 words, <end>


def make_split(n, seed, dtype):
    """Faint noise with one bright square; its colour and quadrant pick the caption's first words (so
    that where the decoder attends matters); captions of 3 to 6 words, padded."""
    rng = np.random.default_rng(seed)
    imgs = 0.1 * rng.uniform(0, 1, (n, 3, 32, 32))
    caps = np.zeros((n, 2, CAPTION_LEN), np.int64)
    caplens = np.zeros((n, 1), np.int64)
    for i in range(n):
        colour, quadrant = int(rng.integers(3)), int(rng.integers(4))
        top, left = 16 * (quadrant // 2) + 4, 16 * (quadrant % 2) + 4
        imgs[i, colour, top:top + 8, left:left + 8] = 1.0
        words = [3 + colour, 6 + quadrant] + [3 + (colour + quadrant + j) % 9 for j in range(int(rng.integers(1, 5)))]
        for r in range(2):
            caps[i, r, :len(words) + 2] = [1] + words + [2]
        caplens[i, 0] = len(words) + 2
    mean = mg.tensor([0.485, 0.456, 0.406]).view(3, 1, 1)  # transforms.Normalize's numbers
    std = mg.tensor([0.229, 0.224, 0.225]).view(3, 1, 1)
    imgs = ((mg.FloatTensor(imgs) - mean) / std).to(dtype)
    return imgs, mg.LongTensor(caps[:, 0]), mg.LongTensor(caplens), mg.LongTensor(caps)


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description='Show, Attend and Tell')
    parser.add_argument('--double', action='store_true')
    parser.add_argument('--dropout', type=float, default=0.5)
    parser.add_argument('--fine-tune-encoder', action='store_true')
    parser.add_argument('--epochs', type=int, default=5)
    args = parser.parse_args(argv)
    mg.manual_seed(0)
    dtype = mg.float64 if args.double else mg.float32

    decoder = DecoderWithAttention(attention_dim=16, embed_dim=16, decoder_dim=16, vocab_size=len(word_map),
                                   encoder_dim=16, dropout=args.dropout).to(dtype)
    encoder = Encoder().to(dtype)
    if init is not None:  # a test hook: records or loads the starting weights
        init('encoder', encoder)
        init('decoder', decoder)
    decoder_optimizer = mg.optim.Adam(params=filter(lambda p: p.requires_grad, decoder.parameters()), lr=2e-2)
    encoder.fine_tune(args.fine_tune_encoder)
    encoder_optimizer = mg.optim.Adam(params=filter(lambda p: p.requires_grad, encoder.parameters()),
                                      lr=1e-3) if args.fine_tune_encoder else None
    decoder = decoder.to(device)
    encoder = encoder.to(device)
    criterion = nn.CrossEntropyLoss().to(device)

    imgs, caps, caplens, allcaps = make_split(12, 1, dtype)
    train_loader = mg.utils.data.DataLoader(mg.utils.data.TensorDataset(imgs, caps, caplens),
                                            batch_size=4, shuffle=False)
    vimgs, vcaps, vcaplens, vallcaps = make_split(6, 2, dtype)
    val_loader = mg.utils.data.DataLoader(mg.utils.data.TensorDataset(vimgs, vcaps, vcaplens, vallcaps),
                                          batch_size=3, shuffle=False)

    history = []
    for epoch in range(args.epochs):
        if epoch > 0:
            adjust_learning_rate(decoder_optimizer, 0.8)
            if args.fine_tune_encoder:
                adjust_learning_rate(encoder_optimizer, 0.8)
        train(train_loader, encoder, decoder, criterion, encoder_optimizer, decoder_optimizer, epoch, history)
        history.append(validate(val_loader, encoder, decoder, criterion, history))

    with mg.no_grad():
        for j in range(2):
            seq, alphas, score = caption_image_beam_search(encoder, decoder, vimgs[j], word_map, beam_size=3)
            history += seq + [len(alphas), score if score is not None else 0.0]
    return history, (encoder, decoder)


if __name__ == '__main__':
    main()
