"""pytorch/examples ``time_sequence_prediction/train.py``, ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/time_sequence_prediction.py --steps 2 --device cpu

Two ``LSTMCell``s learn sine waves with LBFGS in float64.  Every line that differs from the
original is listed in ``examples/ported/README.md``: the data comes from
``local_data.sine_waves`` (the original's ``generate_sine_wave.py``, in memory) and the plot
is left out (matplotlib is not a dependency); ``--waves``/``--length`` shrink the data for tests.
"""

from __future__ import print_function

import argparse

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.optim as optim
from local_data import sine_waves


class Sequence(nn.Module):
    def __init__(self):
        super(Sequence, self).__init__()
        self.lstm1 = nn.LSTMCell(1, 51)
        self.lstm2 = nn.LSTMCell(51, 51)
        self.linear = nn.Linear(51, 1)
        self.dummy_param = nn.Parameter(mg.empty(0))

    def forward(self, input, future = 0):
        outputs = []
        device = self.dummy_param.device
        h_t = mg.zeros(input.size(0), 51, dtype=mg.double).to(device)
        c_t = mg.zeros(input.size(0), 51, dtype=mg.double).to(device)
        h_t2 = mg.zeros(input.size(0), 51, dtype=mg.double).to(device)
        c_t2 = mg.zeros(input.size(0), 51, dtype=mg.double).to(device)

        for input_t in input.split(1, dim=1):
            h_t, c_t = self.lstm1(input_t, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        for i in range(future):# if we should predict the future
            h_t, c_t = self.lstm1(output, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        outputs = mg.cat(outputs, dim=1)
        return outputs


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument('--steps', type=int, default=15, help='steps to run')
    parser.add_argument('--device', type=str, default='cuda', help='training device. cuda, mps, or cpu.')
    parser.add_argument('--waves', type=int, default=100, help='number of sine waves (the original: 100)')
    parser.add_argument('--length', type=int, default=1000, help='samples per wave (the original: 1000)')
    parser.add_argument('--future', type=int, default=1000, help='steps predicted (the original: 1000)')
    opt = parser.parse_args(argv)
    # training device
    device_name = opt.device
    if device_name == 'cuda' and not mg.cuda.is_available():
        print('cuda is not available')
        exit(-1)
    device = mg.device(device_name)
    # set random seed to 0
    np.random.seed(0)
    mg.manual_seed(0)
    # load data and make training set
    data = mg.from_numpy(sine_waves(opt.waves, opt.length)).to(device)
    input = data[3:, :-1]
    target = data[3:, 1:]
    test_input = data[:3, :-1]
    test_target = data[:3, 1:]
    # build the model
    seq = Sequence().to(device).double()
    criterion = nn.MSELoss().to(device)
    # use LBFGS as optimizer since we can load the whole data to train
    optimizer = optim.LBFGS(seq.parameters(), lr=0.8)
    #begin to train
    for i in range(opt.steps):
        print('STEP: ', i)
        def closure():
            optimizer.zero_grad()
            out = seq(input)
            loss = criterion(out, target)
            print('loss:', loss.item())
            loss.backward()
            return loss
        optimizer.step(closure)
        # begin to predict, no need to track gradient here
        with mg.no_grad():
            future = opt.future
            pred = seq(test_input, future=future)
            loss = criterion(pred[:, :-future], test_target)
            print('test loss:', loss.item())
            y = pred.cpu().detach().numpy()
    return y


if __name__ == '__main__':
    main()
